"""The Python modules a tool needs, found wherever tools/deps.sh put them.

The python3 first on PATH may be a pyenv or a virtual environment without the
distribution's packages, which tools/deps.sh installs for Debian's /usr/bin/python3. A tool
calls require() before it imports them: in a Python that lacks them it is run again under
/usr/bin/python3 where that one has them, and otherwise stops saying what to install."""
import importlib
import os
import subprocess
import sys

DISTRIBUTION_PYTHON = "/usr/bin/python3"
PACKAGES = {"matplotlib": "python3-matplotlib", "scipy": "python3-scipy", "numpy": "python3-numpy",
            "vtkmodules": "python3-vtk9 (or ParaView's python3-paraview)"}
_RERUN = "MIXSIM_TOOLS_RERUN"  # set in the run under /usr/bin/python3: never a second time


def missing(modules, python=None):
    """The modules of the list that `python` (default: this one) cannot import."""
    if python is None:
        return [m for m in modules if not _importable(m)]
    return [m for m in modules
            if subprocess.run([python, "-c", "import " + m], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode != 0]


def _importable(module):
    try:
        importlib.import_module(module)
        return True
    except ImportError:
        return False


def advice(tool, modules):
    """What to say when `modules` are missing for this Python."""
    pkgs = ", ".join(PACKAGES.get(m.split(".")[0], "python3-" + m.split(".")[0]) for m in modules)
    pips = " ".join(m.split(".")[0] for m in modules)
    what = "module %s is" % modules[0] if len(modules) == 1 else "modules %s are" % ", ".join(modules)
    return (f"{tool}: the Python {what} missing for {sys.executable}: "
            f"install {pkgs} (tools/deps.sh test does), or `pip install {pips}` into this Python")


def require(tool, *modules):
    """Returns when this Python has every module; else re-runs the tool where Debian's has
    them; else exits 1 with advice()."""
    lacking = missing(modules)
    if not lacking:
        return
    other = DISTRIBUTION_PYTHON
    if not os.environ.get(_RERUN) and os.access(other, os.X_OK) and not missing(modules, other):
        sys.stdout.flush()
        sys.stderr.flush()
        os.environ[_RERUN] = "1"
        os.execv(other, [other] + sys.argv)
    sys.exit(advice(tool, lacking))
