package dataset

// crc32Combine returns the CRC-32C of a followed by b from crcA, that of
// a, crcB, that of b, and lenB, the length of b, without the bytes: zlib's
// crc32_combine (Mark Adler) for the Castagnoli polynomial. Appending lenB
// zero bytes is a linear map of the CRC's register over GF(2); it is
// applied as repeated squares of the one-zero-bit matrix, so the cost is
// O(log lenB) 32×32 bit-matrix products.
func crc32Combine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA
	}
	var even, odd [32]uint32
	odd[0] = 0x82f63b78 // the Castagnoli polynomial, reflected: one zero bit
	row := uint32(1)
	for n := 1; n < 32; n++ {
		odd[n] = row
		row <<= 1
	}
	gf2Square(&even, &odd) // two zero bits
	gf2Square(&odd, &even) // four
	for {
		gf2Square(&even, &odd) // one zero byte, then 4, 16, …
		if lenB&1 != 0 {
			crcA = gf2Times(&even, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
		gf2Square(&odd, &even)
		if lenB&1 != 0 {
			crcA = gf2Times(&odd, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
	}
	return crcA ^ crcB
}

// gf2Times is the bit-matrix mat times the bit-vector vec over GF(2).
func gf2Times(mat *[32]uint32, vec uint32) uint32 {
	var sum uint32
	for i := 0; vec != 0; i, vec = i+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= mat[i]
		}
	}
	return sum
}

// gf2Square sets sq to mat times mat.
func gf2Square(sq, mat *[32]uint32) {
	for n := range 32 {
		sq[n] = gf2Times(mat, mat[n])
	}
}
