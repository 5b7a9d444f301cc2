package kernel

import "golang.org/x/sys/cpu"

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		Tile = tileAVX2
	}
}

// tileAVX2 is Tile with its slices checked, in front of the assembly.
func tileAVX2(k int, a, b, c []float64, ldc int) {
	if k == 0 {
		return
	}
	_ = a[(k-1)*Width+Rows-1]
	_ = b[k*Width-1]
	_ = c[3*ldc+Width-1]
	kern4x12(k, &a[0], &b[0], &c[0], ldc)
}

// kern4x12 is the assembly micro-kernel (kernel_amd64.s).
//
//go:noescape
func kern4x12(k int, a, b, c *float64, ldc int)
