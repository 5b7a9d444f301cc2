package kernel

import "golang.org/x/sys/cpu"

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		Tile4x8 = tile4x8AVX2
	}
}

// tile4x8AVX2 is Tile4x8 with its slices checked, in front of the
// assembly.
func tile4x8AVX2(k int, a, b, c []float64, ldc int) {
	if k == 0 {
		return
	}
	_ = a[(k-1)*Width+Rows-1]
	_ = b[k*Width-1]
	_ = c[3*ldc+Width-1]
	kern4x8(k, &a[0], &b[0], &c[0], ldc)
}

// kern4x8 is the assembly micro-kernel (kernel_amd64.s).
//
//go:noescape
func kern4x8(k int, a, b, c *float64, ldc int)
