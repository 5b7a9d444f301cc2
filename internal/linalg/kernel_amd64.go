package linalg

import "golang.org/x/sys/cpu"

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		kernel4x8 = kernel4x8AVX2
	}
}

// kernel4x8AVX2 is kernel4x8 with its slices checked, in front of the
// assembly.
func kernel4x8AVX2(k int, a, b, c []float64, ldc int) {
	if k == 0 {
		return
	}
	_ = a[(k-1)*panelWidth+tileRows-1]
	_ = b[k*panelWidth-1]
	_ = c[3*ldc+panelWidth-1]
	kern4x8(k, &a[0], &b[0], &c[0], ldc)
}

// kern4x8 is the assembly micro-kernel (kernel_amd64.s).
//
//go:noescape
func kern4x8(k int, a, b, c *float64, ldc int)
