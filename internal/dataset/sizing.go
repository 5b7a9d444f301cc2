package dataset

// Sizing and memory admission of a loading: the matrices reserved once from
// the bytes per row of the first rows, and what the loading tells the
// admission (Options.WithMemory) as the input is read.

// sizeRows is how many rows the loader reads before estimating the rest.
const sizeRows = 256

// startSizing records the input's size in bytes (-1 if unknown) and where
// its data rows start.
func (b *builder) startSizing(size, dataStart int64) {
	b.size, b.dataStart, b.sized = size, dataStart, size <= 0
}

// sizeFrom, called before each row with the bytes consumed so far, reserves
// the whole matrix once, from the mean bytes per row of the first rows, so
// that it is allocated once instead of grown and copied again and again.
// At the same point it decides whether the rows are held sparse (at once
// when the storage is forced).
func (b *builder) sizeFrom(pos int64) {
	b.pos = pos
	if !b.decided && (b.opts.storage != "" || b.rows+b.dropped >= sizeRows) {
		b.decideStorage(b.estimateRows(pos))
	}
	if b.sized || b.rows+b.dropped < sizeRows {
		return
	}
	b.sized = true
	rows := b.estimateRows(pos)
	if rows == 0 {
		return
	}
	if err := b.admitRows(rows); err != nil {
		b.admitError = err
		return
	}
	if b.sp != nil {
		b.reserveSparse(rows)
	} else if more := rows*b.width - len(b.raw); more > 0 {
		b.raw = reserve(b.raw, more)
	}
	if more := rows*b.nlab - len(b.labelCodes); more > 0 {
		b.labelCodes = reserve(b.labelCodes, more)
	}
}

// admitEvery is how much of the input the loader reads between two
// checks of its memory with the admission (Options.WithMemory).
const admitEvery = 1 << 20

// bytes are the memory of what the builder has kept so far (used) and
// of the arrays that hold it (held, with their room to grow).
func (b *builder) bytes() (used, held int64) {
	used = 8*int64(len(b.raw)+len(b.labelCodes)) + b.textBytes
	held = 8*int64(cap(b.raw)+cap(b.labelCodes)) + b.textBytes
	if sp := b.sp; sp != nil {
		used += 8*int64(len(sp.ptr)+len(sp.val)) + 4*int64(len(sp.ind))
		held += 8*int64(cap(sp.ptr)+cap(sp.val)) + 4*int64(cap(sp.ind))
	}
	for _, t := range b.textCols {
		used += 4 * int64(len(t.codes))
		held += 4 * int64(cap(t.codes))
	}
	return used, held
}

// admit tells the admission, every admitEvery bytes of input (pos bytes
// read), what the loading will hold at the end: what it holds, or what
// it has kept so far scaled to the whole input, whichever is more. It
// returns the admission's refusal (and any met while sizing).
func (b *builder) admit(pos int64) error {
	if b.admitError != nil || b.opts.memory == nil || pos < b.admitAt || b.rows+b.dropped == 0 {
		return b.admitError
	}
	b.admitAt = pos + admitEvery
	used, held := b.bytes()
	b.admitUsed = max(2*used, used+admitEvery)
	rows := int64(b.rows + b.dropped)
	est := held
	if b.size > 0 && pos > b.dataStart {
		f := float64(b.size-b.dataStart) / float64(pos-b.dataStart)
		est = max(held, int64(float64(used)*f))
		rows = int64(float64(rows) * f)
	}
	b.admitError = b.opts.need(est, rows)
	return b.admitError
}

// admitRows tells the admission that the matrices are about to be
// reserved for rows rows, before they are.
func (b *builder) admitRows(rows int) error {
	if b.opts.memory == nil || b.rows+b.dropped == 0 {
		return nil
	}
	used, _ := b.bytes()
	perRow := float64(used) / float64(b.rows+b.dropped)
	return b.opts.need(int64(perRow*float64(rows)), int64(rows))
}

// estimateRows estimates the rows of the whole input from the mean bytes
// per row so far, with 2 % to spare; 0 when the size is unknown.
func (b *builder) estimateRows(pos int64) int {
	if b.size <= 0 || b.rows+b.dropped == 0 {
		return 0
	}
	perRow := float64(pos-b.dataStart) / float64(b.rows+b.dropped)
	if perRow <= 0 {
		return 0
	}
	return int(float64(b.size-b.dataStart)/perRow*1.02) + 16
}

// reserve returns s with room for more elements. It allocates with make,
// which leaves memory fresh from the system untouched, where slices.Grow
// clears all of it: the slack of sizeFrom's estimate then stays out of the
// resident set (peak RSS 981 MB, not 1000 MB, for the benchmark's 1 GiB
// CSV; the speed is the same).
func reserve(s []float64, more int) []float64 {
	t := make([]float64, len(s), len(s)+more)
	copy(t, s)
	return t
}
