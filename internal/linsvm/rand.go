package linsvm

// Rand is the C library's rand() as glibc computes it (random_r's
// additive feedback generator of degree 31, TYPE_3), so that the sweeps
// visit the coordinates in LIBLINEAR's order. Its numbers are in
// [0, 2³¹). The zero value is not usable: call NewRand.
type Rand struct {
	s    [31]uint32
	f, r int
}

// NewRand returns the generator as a process starts it: srand(1), which
// LIBLINEAR never calls, being the default.
func NewRand() *Rand {
	g := &Rand{f: 3}
	g.s[0] = 1
	for i := 1; i < len(g.s); i++ {
		// 16807·s mod (2³¹ − 1), as glibc's srandom_r (Schrage's method
		// there; exact in 64 bits here).
		g.s[i] = uint32(16807 * uint64(g.s[i-1]) % 2147483647)
	}
	for range 310 { // glibc discards the first 10·31 outputs
		g.Next()
	}
	return g
}

// Next returns the next number, as rand() would.
func (g *Rand) Next() uint32 {
	g.s[g.f] += g.s[g.r]
	out := g.s[g.f] >> 1
	g.f = (g.f + 1) % len(g.s)
	g.r = (g.r + 1) % len(g.s)
	return out
}
