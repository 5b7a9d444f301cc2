package store

import (
	"io/fs"
	"syscall"
)

// sysIdentity adds the device, inode and change time of st.
func sysIdentity(st fs.FileInfo, id *fileIdentity) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(s.Dev), uint64(s.Ino)
		id.ctime = s.Ctim.Nano()
	}
}
