"""A checkpoint's bytes, for the tests that craft or read into one (checkpoint.sh,
checkpoint_fields.sh, friction.sh, walls_checkpoint.sh): where its fields start, and its
checksums set again.

Layout (src/io/checkpoint_file.c, the tables of src/io/checkpoint.c): a 40-byte header (the
format version at 8, the payload's size at 24, the payload's CRC-32 at 32, the header's at
36), then the payload: since format 4 the record of the scene's files (a count, then 16
bytes and a key per file, then the record's CRC-32), then the fields. A collision payload's
fields, since format 5:
  n_small, n_large (i32), step (i64), capacity, largest overflow (i32), four i64 counters,
  small positions and velocities (16 n_small each), large state (32 n_large);
  friction (i32), n_ss, n_ls, n_ll (i64), then with friction small and large rotation (16
  n_small, 16 n_large), small and large box-wall histories (16 n_small, 16 n_large), the
  history entries (12 bytes each: a, b i32, xi f32);
  the walls: n_walls (i32), n_sw, n_lw (i64: the small-wall and large-wall histories),
  force-driven flags (i32 per wall), motion (s, s_dot f64 per wall), the history entries
  (16 bytes each: a, b, feature i32, xi f32; small-wall a = wall, b = small particle;
  large-wall a = large particle, b = wall);
  since format 6, the ids: next id (i64), the flows and whether they started (i32 each),
  the small particles' ids (8 n_small), the large particles' (8 n_large), the images (8
  n_small, 8 n_large: two i32 each), the slots' shapes (8 n_small: radius, mass f32) and
  the flows' counts, masses and skipped (8 each per flow);
  since format 7, the large slots: radius and mass (8 n_large: f32 each) and whether static
  (4 n_large: i32)."""
import struct
import zlib

HEADER = 40
VERSION = 7


def record_end(d):
    """The offset of the record's CRC-32: the record without it ends here."""
    o = HEADER + 4
    for _ in range(struct.unpack_from('<I', d, HEADER)[0]):
        o += 16 + struct.unpack_from('<I', d, o + 4)[0]
    return o


def fields_at(d):
    """The offset of the first field, past the record of the scene's files."""
    return record_end(d) + 4


def friction_at(d):
    """A collision checkpoint's friction flag: where its friction section starts."""
    p = fields_at(d)
    ns, nl = struct.unpack_from('<ii', d, p)
    return p + 56 + 32 * ns + 32 * nl


def walls_at(d):
    """A collision checkpoint's walls count: where its walls section starts."""
    p = fields_at(d)
    ns, nl = struct.unpack_from('<ii', d, p)
    f = friction_at(d)
    flag, n_ss, n_ls, n_ll = struct.unpack_from('<iqqq', d, f)
    return f + 28 + (32 * (ns + nl) if flag else 0) + 12 * (n_ss + n_ls + n_ll)


def walls(d):
    """The walls section: {'at', 'n', 'n_sw', 'n_lw', 'driven', 'motion', 'sw', 'lw'} with
    the offsets 'driven_at', 'motion_at', 'sw_at', 'lw_at'; entries as tuples."""
    w = walls_at(d)
    n, n_sw, n_lw = struct.unpack_from('<iqq', d, w)
    r = {'at': w, 'n': n, 'n_sw': n_sw, 'n_lw': n_lw, 'driven_at': w + 20}
    r['motion_at'] = r['driven_at'] + 4 * n
    r['sw_at'] = r['motion_at'] + 16 * n
    r['lw_at'] = r['sw_at'] + 16 * n_sw
    r['driven'] = struct.unpack_from('<%di' % n, d, r['driven_at'])
    r['motion'] = struct.unpack_from('<%dd' % (2 * n), d, r['motion_at'])
    r['sw'] = [struct.unpack_from('<iiif', d, r['sw_at'] + 16 * k) for k in range(n_sw)]
    r['lw'] = [struct.unpack_from('<iiif', d, r['lw_at'] + 16 * k) for k in range(n_lw)]
    r['end'] = r['lw_at'] + 16 * n_lw
    return r


def ids(d):
    """The ids section (format 6): {'at', 'next', 'small', 'large'}, with the offsets
    'small_at', 'large_at', 'end'; after the ids, the open systems' arrays (the images, the
    slots' shapes, the flows' totals); then the large slots' section (format 7), which ends
    the file."""
    p = fields_at(d)
    ns, nl = struct.unpack_from('<ii', d, p)
    at = walls(d)['end']
    r = {'at': at, 'next': struct.unpack_from('<q', d, at)[0]}
    r['flows'], r['started'] = struct.unpack_from('<ii', d, at + 8)
    r['small_at'] = at + 16
    r['large_at'] = r['small_at'] + 8 * ns
    r['small'] = list(struct.unpack_from('<%dq' % ns, d, r['small_at']))
    r['large'] = list(struct.unpack_from('<%dq' % nl, d, r['large_at']))
    r['end'] = r['large_at'] + 8 * nl + 8 * ns + 8 * nl + 8 * ns + 24 * r['flows']
    version = struct.unpack_from('<I', d, 8)[0]
    assert r['end'] + (12 * nl if version >= 7 else 0) == len(d), 'the large slots end the file'
    return r


def as_format_6(d):
    """A checkpoint as format 6 wrote it: a collision one without the large slots' section
    (a gravity one's payload is the same)."""
    d = bytearray(d[:ids(d)['end']] if collision(d) else d)
    struct.pack_into('<I', d, 8, 6)
    reseal(d)
    return d


def collision(d):
    """Whether d is a collision checkpoint (the header's mode, at 12: 0; gravity 1)."""
    return struct.unpack_from('<I', d, 12)[0] == 0


def as_format_5(d):
    """A checkpoint as format 5 wrote it: a collision one without the ids section (a
    gravity one's payload is the same)."""
    d = bytearray(d[:ids(d)['at']] if collision(d) else d)
    struct.pack_into('<I', d, 8, 5)
    reseal(d)
    return d


def as_format_4(d):
    """A checkpoint as format 4 wrote it: a collision one without the walls section (a
    gravity one's payload is the same)."""
    d = bytearray(d[:walls_at(d)] if collision(d) else d)
    struct.pack_into('<I', d, 8, 4)
    reseal(d)
    return d


def as_format_3(d):
    """A checkpoint as format 3 wrote it: as format 4's, without the record of the scene's
    files."""
    d = as_format_4(d)
    d = bytearray(d[:HEADER] + d[fields_at(d):])
    struct.pack_into('<I', d, 8, 3)
    reseal(d)
    return d


def reseal(d):
    """Sets the payload's size and both checksums after an edit of bytearray d."""
    struct.pack_into('<Q', d, 24, len(d) - HEADER)
    struct.pack_into('<I', d, 32, zlib.crc32(bytes(d[HEADER:])))
    struct.pack_into('<I', d, 36, zlib.crc32(bytes(d[:36])))
