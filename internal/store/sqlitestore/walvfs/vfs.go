package walvfs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// Name is the VFS's name, for the vfs parameter of a database's DSN.
const Name = "rtcagent-wal"

const (
	frameHeader = 24        // bytes of a WAL frame's header
	maxRun      = 1<<17 - 1 // bytes gathered at most: the most the unix VFS writes in one call
)

var (
	registered  sync.Once
	errRegister error

	unixVFS uintptr // the unix VFS, whose xOpen opens every file

	mu      sync.Mutex
	files   = map[uintptr]*walFile{} // the WAL files open, by their sqlite3_file
	unixIO  uintptr                  // the unix VFS's methods of a WAL file (set at the first)
	walIO   sqlite3.Tsqlite3_io_methods
	written atomic.Int64
)

// ErrNoUnixVFS is Register's error where SQLite has no unix VFS to build on
// (Windows): a database is then opened with SQLite's own VFS.
var ErrNoUnixVFS = errors.New("walvfs: SQLite has no unix VFS")

// Register registers the VFS with SQLite, once per process; later calls
// return the first one's result.
func Register() error {
	registered.Do(func() { errRegister = register() })
	return errRegister
}

// Writes returns how many writes this process's WAL files made so far
// through the VFS: one a commit, and one for each run written early.
func Writes() int64 { return written.Load() }

func register() error {
	tls := libc.NewTLS()
	defer tls.Close()
	unix, err := libc.CString("unix")
	if err != nil {
		return err
	}
	defer libc.Xfree(tls, unix)
	if unixVFS = sqlite3.Xsqlite3_vfs_find(tls, unix); unixVFS == 0 {
		return ErrNoUnixVFS
	}
	name, err := libc.CString(Name)
	if err != nil {
		return err
	}
	size := unsafe.Sizeof(sqlite3.Tsqlite3_vfs{})
	p := libc.Xmalloc(tls, uint64(size))
	if p == 0 {
		libc.Xfree(tls, name)
		return errors.New("walvfs: out of memory")
	}
	v := (*sqlite3.Tsqlite3_vfs)(at(p))
	*v = *(*sqlite3.Tsqlite3_vfs)(at(unixVFS))
	v.FpNext = 0
	v.FzName = name
	*(*func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr) int32)(unsafe.Pointer(&v.FxOpen)) = vfsOpen
	if rc := sqlite3.Xsqlite3_vfs_register(tls, p, 0); rc != sqlite3.SQLITE_OK {
		libc.Xfree(tls, name)
		libc.Xfree(tls, p)
		return fmt.Errorf("walvfs: register: SQLite error %d", rc)
	}
	return nil
}

// walFile is the run of bytes gathered for one open WAL file: n bytes at buf,
// to be written at off.
type walFile struct {
	buf    uintptr // libc memory, size bytes
	size   int
	off    int64
	n      int
	end    int64 // the offset just past the last write
	header bool  // the last write was a commit frame's header
}

// vfsOpen opens every file with the unix VFS, and gathers the writes of a WAL
// file that got the methods the first WAL file got.
func vfsOpen(tls *libc.TLS, _ uintptr, zName, pFile uintptr, flags int32, pOutFlags uintptr) int32 {
	u := (*sqlite3.Tsqlite3_vfs)(at(unixVFS))
	rc := (*(*func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{u.FxOpen})))(tls, unixVFS, zName, pFile, flags, pOutFlags)
	if rc != sqlite3.SQLITE_OK || flags&sqlite3.SQLITE_OPEN_WAL == 0 {
		return rc
	}
	file := (*sqlite3.Tsqlite3_file)(at(pFile))
	mu.Lock()
	defer mu.Unlock()
	if unixIO == 0 {
		unixIO = file.FpMethods
		walIO = *(*sqlite3.Tsqlite3_io_methods)(at(unixIO))
		*(*func(*libc.TLS, uintptr) int32)(unsafe.Pointer(&walIO.FxClose)) = walClose
		*(*func(*libc.TLS, uintptr, uintptr, int32, int64) int32)(unsafe.Pointer(&walIO.FxRead)) = walRead
		*(*func(*libc.TLS, uintptr, uintptr, int32, int64) int32)(unsafe.Pointer(&walIO.FxWrite)) = walWrite
		*(*func(*libc.TLS, uintptr, int64) int32)(unsafe.Pointer(&walIO.FxTruncate)) = walTruncate
		*(*func(*libc.TLS, uintptr, int32) int32)(unsafe.Pointer(&walIO.FxSync)) = walSync
		*(*func(*libc.TLS, uintptr, uintptr) int32)(unsafe.Pointer(&walIO.FxFileSize)) = walFileSize
		*(*func(*libc.TLS, uintptr, int32, uintptr) int32)(unsafe.Pointer(&walIO.FxFileControl)) = walFileControl
	}
	if file.FpMethods != unixIO {
		return rc // methods this package did not wrap: the file is the unix VFS's
	}
	files[pFile] = &walFile{}
	file.FpMethods = uintptr(unsafe.Pointer(&walIO))
	return rc
}

// at is the memory at address p: SQLite's, outside Go's heap.
func at(p uintptr) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(nil), p) }

func fileOf(pFile uintptr) *walFile {
	mu.Lock()
	defer mu.Unlock()
	return files[pFile]
}

func unixMethods() *sqlite3.Tsqlite3_io_methods {
	return (*sqlite3.Tsqlite3_io_methods)(at(unixIO))
}

func unixWrite(tls *libc.TLS, pFile, zBuf uintptr, iAmt int32, iOfst int64) int32 {
	return (*(*func(*libc.TLS, uintptr, uintptr, int32, int64) int32)(unsafe.Pointer(&struct{ uintptr }{unixMethods().FxWrite})))(tls, pFile, zBuf, iAmt, iOfst)
}

// flush writes the run gathered for f, if any.
func (f *walFile) flush(tls *libc.TLS, pFile uintptr) int32 {
	if f.n == 0 {
		return sqlite3.SQLITE_OK
	}
	n := f.n
	f.n = 0
	written.Add(1)
	return unixWrite(tls, pFile, f.buf, int32(n), f.off)
}

// room makes f's buffer hold n bytes; false if it cannot.
func (f *walFile) room(tls *libc.TLS, n int) bool {
	if n <= f.size {
		return true
	}
	size := max(n, 2*f.size, 64<<10)
	p := libc.Xrealloc(tls, f.buf, uint64(size))
	if p == 0 {
		return false
	}
	f.buf, f.size = p, size
	return true
}

// walWrite gathers a write that continues the one before it, and writes the
// run once it holds a commit frame's page. Any other write goes to the file at
// once, after the run: a page or a checksum rewritten in place, the log's
// header when it starts over, a write past the run's room.
func walWrite(tls *libc.TLS, pFile, zBuf uintptr, iAmt int32, iOfst int64) int32 {
	f := fileOf(pFile)
	amt := int(iAmt)
	commitPage := f.header // the page of the commit frame whose header came last
	// A frame header's bytes 4-7 are the database's size in pages after a
	// commit, zero in every other frame.
	f.header = amt == frameHeader && binary.BigEndian.Uint32(unsafe.Slice((*byte)(at(zBuf)), frameHeader)[4:8]) != 0
	next := iOfst == f.end
	f.end = iOfst + int64(amt)
	if f.n > 0 && (!next || f.n+amt > maxRun) {
		if rc := f.flush(tls, pFile); rc != sqlite3.SQLITE_OK {
			return rc
		}
	}
	if !next || amt > maxRun || !f.room(tls, f.n+amt) {
		if rc := f.flush(tls, pFile); rc != sqlite3.SQLITE_OK {
			return rc
		}
		written.Add(1)
		return unixWrite(tls, pFile, zBuf, iAmt, iOfst)
	}
	if f.n == 0 {
		f.off = iOfst
	}
	libc.Xmemcpy(tls, f.buf+uintptr(f.n), zBuf, uint64(amt))
	f.n += amt
	if commitPage {
		return f.flush(tls, pFile)
	}
	return sqlite3.SQLITE_OK
}

func walClose(tls *libc.TLS, pFile uintptr) int32 {
	f := fileOf(pFile)
	rc := f.flush(tls, pFile)
	crc := (*(*func(*libc.TLS, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{unixMethods().FxClose})))(tls, pFile)
	libc.Xfree(tls, f.buf)
	mu.Lock()
	delete(files, pFile)
	mu.Unlock()
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	return crc
}

func walRead(tls *libc.TLS, pFile, zBuf uintptr, iAmt int32, iOfst int64) int32 {
	if rc := fileOf(pFile).flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return (*(*func(*libc.TLS, uintptr, uintptr, int32, int64) int32)(unsafe.Pointer(&struct{ uintptr }{unixMethods().FxRead})))(tls, pFile, zBuf, iAmt, iOfst)
}

func walTruncate(tls *libc.TLS, pFile uintptr, size int64) int32 {
	if rc := fileOf(pFile).flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return (*(*func(*libc.TLS, uintptr, int64) int32)(unsafe.Pointer(&struct{ uintptr }{unixMethods().FxTruncate})))(tls, pFile, size)
}

func walSync(tls *libc.TLS, pFile uintptr, flags int32) int32 {
	if rc := fileOf(pFile).flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return (*(*func(*libc.TLS, uintptr, int32) int32)(unsafe.Pointer(&struct{ uintptr }{unixMethods().FxSync})))(tls, pFile, flags)
}

func walFileSize(tls *libc.TLS, pFile, pSize uintptr) int32 {
	if rc := fileOf(pFile).flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return (*(*func(*libc.TLS, uintptr, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{unixMethods().FxFileSize})))(tls, pFile, pSize)
}

func walFileControl(tls *libc.TLS, pFile uintptr, op int32, pArg uintptr) int32 {
	if rc := fileOf(pFile).flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return (*(*func(*libc.TLS, uintptr, int32, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{unixMethods().FxFileControl})))(tls, pFile, op, pArg)
}
