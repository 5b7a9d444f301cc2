package dataset

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestCRC32Combine checks crc32Combine against the checksum of the joined
// bytes, at split points from 0 to the whole, and onePass, in parts on
// several goroutines, against crc32.Checksum.
func TestCRC32Combine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 3*onePassPart+12345)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	want := crc32.Checksum(b, castagnoli)
	for _, at := range []int{0, 1, 7, 8, 1000, viewChunk, onePassPart + 3, len(b) - 1, len(b)} {
		got := crc32Combine(crc32.Checksum(b[:at], castagnoli), crc32.Checksum(b[at:], castagnoli), int64(len(b)-at))
		if got != want {
			t.Errorf("split at %d: got %#x, want %#x", at, got, want)
		}
	}
	for _, n := range []int{0, 8, viewChunk + 8, onePassPart, 2*onePassPart + 8, len(b)} {
		got, err := onePass(b[:n], true, nil)
		if w := crc32.Checksum(b[:n], castagnoli); err != nil || got != w {
			t.Errorf("onePass of %d bytes: got %#x, %v; want %#x", n, got, err, w)
		}
	}
}
