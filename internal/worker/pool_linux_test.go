package worker

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

func syscallKill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// alive reports whether process pid runs (and is not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}
