#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""pvh-kernel.py BZIMAGE OUT - the ELF kernel inside a bzImage, for PVH boot.

Under TCG a guest spends about 4 s before the kernel's first line
decompressing an xz bzImage (Debian's kernels are xz), twice per guest
test. QEMU also boots an uncompressed ELF vmlinux directly when it carries
the PVH entry note (CONFIG_PVH: Debian's 6.1 and 6.12 do), which skips
both the real-mode setup and the decompression. This writes that ELF to
OUT and exits 0; it exits 3 when the kernel has no PVH entry (a property
of the image: run.sh remembers it) and 1 when it cannot unpack the
payload (a missing zstd(1): tried again next time), with a reason on
stderr. run.sh then boots the bzImage as before.
"""

import bz2
import gzip
import lzma
import shutil
import struct
import subprocess
import sys

PT_NOTE = 4
XEN_ELFNOTE_PHYS32_ENTRY = 18


def payload(image):
    """The compressed kernel of a bzImage (boot protocol 2.08+)."""
    if len(image) < 0x250 or image[0x202:0x206] != b'HdrS':
        raise ValueError('not a bzImage (no HdrS header)')
    if struct.unpack_from('<H', image, 0x206)[0] < 0x208:
        raise ValueError('boot protocol older than 2.08: no payload fields')
    setup_sects = image[0x1f1] or 4
    start = (setup_sects + 1) * 512
    offset, length = struct.unpack_from('<II', image, 0x248)
    return image[start + offset:start + offset + length]


def decompress(data):
    if data.startswith(b'\x1f\x8b'):
        return gzip.decompress(data)
    if data.startswith(b'\xfd7zXZ\x00'):
        return lzma.LZMADecompressor(lzma.FORMAT_XZ).decompress(data)
    if data.startswith(b'\x5d\x00\x00'):
        return lzma.LZMADecompressor(lzma.FORMAT_ALONE).decompress(data)
    if data.startswith(b'BZh'):
        return bz2.decompress(data)
    if data.startswith(b'\x28\xb5\x2f\xfd') and shutil.which('zstd'):
        # The kernel appends the uncompressed size (4 bytes), which zstd
        # would take for a truncated second frame.
        return subprocess.run(['zstd', '-qdc'], input=data[:-4], check=True,
                              stdout=subprocess.PIPE).stdout
    raise ValueError('payload compressed in a way this cannot unpack '
                     '(magic %s)' % data[:6].hex())


def has_pvh_entry(elf):
    """True if the ELF carries Xen's PHYS32_ENTRY note (QEMU's PVH boot)."""
    if elf[:4] != b'\x7fELF' or elf[4] != 2:
        raise ValueError('payload is not a 64-bit ELF')
    phoff, = struct.unpack_from('<Q', elf, 0x20)
    phentsize, phnum = struct.unpack_from('<HH', elf, 0x36)
    for i in range(phnum):
        ptype, = struct.unpack_from('<I', elf, phoff + i * phentsize)
        if ptype != PT_NOTE:
            continue
        off, = struct.unpack_from('<Q', elf, phoff + i * phentsize + 8)
        size, = struct.unpack_from('<Q', elf, phoff + i * phentsize + 32)
        pos, end = off, off + size
        while pos + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from('<III', elf, pos)
            name = elf[pos + 12:pos + 12 + namesz].rstrip(b'\0')
            if name == b'Xen' and ntype == XEN_ELFNOTE_PHYS32_ENTRY:
                return True
            pos += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    return False


def main(argv):
    if len(argv) != 3:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    try:
        with open(argv[1], 'rb') as f:
            elf = decompress(payload(f.read()))
        if not has_pvh_entry(elf):
            print('pvh-kernel: %s: kernel has no PVH entry note '
                  '(CONFIG_PVH off)' % argv[1], file=sys.stderr)
            return 3
    except (OSError, ValueError, EOFError, lzma.LZMAError,
            subprocess.CalledProcessError) as e:
        print('pvh-kernel: %s: %s' % (argv[1], e), file=sys.stderr)
        return 1
    with open(argv[2], 'wb') as f:
        f.write(elf)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
