"""A case-insensitive, case-preserving file system over FUSE, for tests (issue 25: case folding on a real
case-insensitive file system). Linux kernels without CONFIG_UNICODE (ext4 casefold), without XFS ascii-ci and
without vfat cannot mount one natively; this is one the kernel mounts and every program (git, coord) uses as a
file system: a name is found whatever its case, and kept as first written — as on macOS and Windows.

usage: python3 casefold-fs.py BACKING MOUNTPOINT   (foreground; fusermount -u MOUNTPOINT stops it)
Needs fusepy (Debian: python3-fusepy, module `fusepy`) and /dev/fuse.
"""
import errno
import os
import sys

try:
    import fusepy as fuse
except ImportError:
    import fuse  # type: ignore


class CaseFold(fuse.Operations):
    def __init__(self, root):
        self.root = os.path.realpath(root)

    def _real(self, path):
        """The backing path, each component matched without regard to case (the first spelling wins)."""
        at = self.root
        for part in [p for p in path.split('/') if p]:
            exact = os.path.join(at, part)
            if os.path.lexists(exact):
                at = exact
                continue
            try:
                names = os.listdir(at)
            except OSError:
                return os.path.join(at, part)
            low = part.lower()
            match = next((n for n in names if n.lower() == low), None)
            at = os.path.join(at, match if match is not None else part)
        return at

    def _new(self, path):
        """Where a new entry goes: its folder matched without case, its own name as written."""
        head, tail = os.path.split(path.rstrip('/'))
        existing = self._real(path)
        if os.path.lexists(existing):
            return existing
        return os.path.join(self._real(head), tail)

    def access(self, path, mode):
        if not os.access(self._real(path), mode):
            raise fuse.FuseOSError(errno.EACCES)

    def chmod(self, path, mode):
        return os.chmod(self._real(path), mode)

    def chown(self, path, uid, gid):
        return os.lchown(self._real(path), uid, gid)

    def getattr(self, path, fh=None):
        st = os.lstat(self._real(path))
        keys = ('st_atime', 'st_ctime', 'st_gid', 'st_mode', 'st_mtime', 'st_nlink', 'st_size', 'st_uid', 'st_ino')
        out = {k: getattr(st, k) for k in keys}
        out['st_atime'], out['st_mtime'], out['st_ctime'] = st.st_atime_ns / 1e9, st.st_mtime_ns / 1e9, st.st_ctime_ns / 1e9
        return out

    def readdir(self, path, fh):
        return ['.', '..'] + os.listdir(self._real(path))

    def readlink(self, path):
        return os.readlink(self._real(path))

    def mknod(self, path, mode, dev):
        return os.mknod(self._new(path), mode, dev)

    def rmdir(self, path):
        return os.rmdir(self._real(path))

    def mkdir(self, path, mode):
        return os.mkdir(self._new(path), mode)

    def statfs(self, path):
        st = os.statvfs(self._real(path))
        keys = ('f_bavail', 'f_bfree', 'f_blocks', 'f_bsize', 'f_favail', 'f_ffree', 'f_files', 'f_flag',
                'f_frsize', 'f_namemax')
        return {k: getattr(st, k) for k in keys}

    def unlink(self, path):
        return os.unlink(self._real(path))

    def symlink(self, name, target):
        return os.symlink(target, self._new(name))

    def rename(self, old, new):
        src = self._real(old)
        dst = self._real(new)
        # A rename onto another spelling of the same name keeps the new spelling.
        if os.path.lexists(dst) and os.path.normcase(dst).lower() == os.path.normcase(src).lower():
            dst = os.path.join(os.path.dirname(dst), os.path.basename(new))
        elif not os.path.lexists(dst):
            dst = self._new(new)
        return os.rename(src, dst)

    def link(self, target, name):
        return os.link(self._real(name), self._new(target))

    def utimens(self, path, times=None):
        return os.utime(self._real(path), times, follow_symlinks=False)

    def open(self, path, flags):
        return os.open(self._real(path), flags)

    def create(self, path, mode, fi=None):
        return os.open(self._new(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)

    def read(self, path, length, offset, fh):
        os.lseek(fh, offset, os.SEEK_SET)
        return os.read(fh, length)

    def write(self, path, buf, offset, fh):
        os.lseek(fh, offset, os.SEEK_SET)
        return os.write(fh, buf)

    def truncate(self, path, length, fh=None):
        with open(self._real(path), 'r+') as f:
            f.truncate(length)

    def flush(self, path, fh):
        return os.fsync(fh)

    def release(self, path, fh):
        return os.close(fh)

    def fsync(self, path, fdatasync, fh):
        return os.fsync(fh)


if __name__ == '__main__':
    # use_ino: the backing file's inode, so two spellings of one name are one inode, as on a real one.
    fuse.FUSE(CaseFold(sys.argv[1]), sys.argv[2], foreground=True, nothreads=True, use_ino=True)
