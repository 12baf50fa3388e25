/* The gravity report (io/gravity_report.h). */
#include "io/gravity_report.h"

#include <math.h>

static double interactions(const ms_gravity_stats *s, long steps)
{
  return (double)s->bodies * (double)s->bodies * (double)steps;
}

static double per_step_ms(double s, long steps) { return steps > 0 ? 1e3 * s / steps : 0.0; }

void ms_report_gravity(FILE *out, const ms_gravity_summary *sum)
{
  const ms_scene *scene = sum->scene;
  const ms_gravity_stats *s = sum->stats;
  const ms_gravity_scene *gs = &scene->grav;
  long steps = s->steps, run = s->steps_run; /* rates: this run's steps and time only */
  for (int i = 0; i < s->device_count; i++) {
    const ms_gravity_device_stats *d = &s->device[i];
    fprintf(out, "device    %s [%s] %s, kernel %s", d->name, d->platform, d->spec, d->kernel);
    if (d->work_group > 1)
      fprintf(out, " (work-group %d)", d->work_group);
    if (s->device_count > 1 && d->count == 0)
      fprintf(out, ", no bodies");
    else if (s->device_count > 1)
      fprintf(out, ", bodies %d..%d (%.1f%%), %.3g bodies/s", d->first, d->first + d->count - 1,
              100.0 * d->count / s->bodies, d->bodies_per_s);
    fputc('\n', out);
  }
  fprintf(out, "run       %ld steps of dt %g (t = %g), %d bodies (%s), %s, burst %ld, softening "
               "%g, G %g",
          steps, scene->dt_s, steps * scene->dt_s, s->bodies, ms_bodies_name(gs->bodies),
          ms_integrator_name(gs->integrator), sum->burst, gs->softening, gs->g);
  if (run != steps) /* resumed */
    fprintf(out, "; %ld of them in this run, from step %ld", run, steps - run);
  fputc('\n', out);
  double rate = s->advance_s > 0 ? interactions(s, run) / s->advance_s : 0.0;
  fprintf(out, "speed     %.2f steps/s, %.3g interactions/s, %.1f GFLOP/s (%d flop per "
               "interaction)\n",
          s->advance_s > 0 ? run / s->advance_s : 0.0, rate,
          rate * MS_GRAVITY_FLOPS_PER_INTERACTION * 1e-9, MS_GRAVITY_FLOPS_PER_INTERACTION);
  const ms_gravity_diag *last = sum->last; /* E0: step 0's, not the first line's */
  if (last->has_energy)
    fprintf(out, "energy    E0 %.9g, E %.9g: dE/E %+.3e, max |dE/E| %.3e (%s); 2K/|W| %.4f\n",
            s->initial_energy, last->energy, last->energy_error, sum->max_error,
            last->sampled ? "sampled estimate" : "exact", last->virial_ratio);
  fprintf(out, "momentum  P %.3g, %.3g, %.3g; L %.6g, %.6g, %.6g\n", last->momentum[0],
          last->momentum[1], last->momentum[2], last->angular_momentum[0],
          last->angular_momentum[1], last->angular_momentum[2]);
  fprintf(out, "time per phase (ms/step; kernels from OpenCL profiling, the rest wall clock)\n");
  for (int i = 0; i < s->device_count; i++)
    fprintf(out, "    force kernel %-6s %9.4f   drift/pack %9.4f\n", s->device[i].spec,
            per_step_ms(s->device[i].force_s, run), per_step_ms(s->device[i].other_s, run));
  fprintf(out, "    exchange            %9.4f   (%d rebalances)\n", per_step_ms(s->exchange_s, run),
          s->rebalances);
  if (s->ranks > 1) /* MPI: the part of the exchange spent in the ranks' collective */
    fprintf(out, "    of which MPI        %9.4f   (%d ranks; the devices above are rank 0's)\n",
            per_step_ms(s->mpi_s, run), s->ranks);
  fprintf(out, "    read-back           %9.4f\n", per_step_ms(s->readback_s, run));
  fprintf(out, "    stepping, wall      %9.4f\n", per_step_ms(s->advance_s, run));
  fprintf(out, "    diagnostics         %9.1f ms in all\n", 1e3 * s->diagnostics_s);
  fprintf(out, "state hash %08x (step %ld)\n", sum->hash, steps);
}
