"""A checkpoint's bytes, for the tests that craft or read into one (checkpoint.sh,
checkpoint_fields.sh, friction.sh): where its fields start, and its checksums set again.

Layout (src/io/checkpoint_file.c): a 40-byte header (the format version at 8, the payload's
size at 24, the payload's CRC-32 at 32, the header's at 36), then the payload: since format 4
the record of the scene's files (a count, then 16 bytes and a key per file, then the
record's CRC-32), then the fields."""
import struct
import zlib

HEADER = 40


def record_end(d):
    """The offset of the record's CRC-32: the record without it ends here."""
    o = HEADER + 4
    for _ in range(struct.unpack_from('<I', d, HEADER)[0]):
        o += 16 + struct.unpack_from('<I', d, o + 4)[0]
    return o


def fields_at(d):
    """The offset of the first field, past the record of the scene's files."""
    return record_end(d) + 4


def reseal(d):
    """Sets the payload's size and both checksums after an edit of bytearray d."""
    struct.pack_into('<Q', d, 24, len(d) - HEADER)
    struct.pack_into('<I', d, 32, zlib.crc32(bytes(d[HEADER:])))
    struct.pack_into('<I', d, 36, zlib.crc32(bytes(d[:36])))
