// Package membudget keeps concurrent work within a budget of memory: each
// piece of work claims the bytes it estimates it will hold at its
// largest, its claim growing as its estimate does, and is refused when
// the claims would exceed the budget. The server reads uploads under one
// (the loader's estimate, dataset.Options.WithMemory), as it admits jobs
// under -max-job-memory.
package membudget

import (
	"fmt"
	"strconv"
	"sync"
)

// Budget is a number of bytes that claims share. It is safe for
// concurrent use.
type Budget struct {
	mu    sync.Mutex
	limit int64
	used  int64
}

// New returns a budget of limit bytes; limit ≤ 0 admits everything.
func New(limit int64) *Budget { return &Budget{limit: limit} }

// Limit is the budget's size in bytes (≤ 0: no limit).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Used is the bytes the open claims hold.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Claim opens a claim of no bytes on b, for work that what names ("this
// upload"). A nil budget's claims admit everything.
func (b *Budget) Claim(what string) *Claim { return &Claim{b: b, what: what} }

// Claim is one piece of work's share of a Budget. Its methods are not
// safe for concurrent use.
type Claim struct {
	b    *Budget
	what string
	held int64
}

// Grow raises the claim to total bytes, when that is more than it holds
// (a claim never shrinks before Release); rows, if positive, is how many
// rows the work estimates it holds then, for the error's "what would
// fit". It returns an *Error, and holds what it held, when the budget
// cannot take it: alone (Busy false: the work can never fit) or beside
// the other claims (Busy true: it may fit later).
func (c *Claim) Grow(total, rows int64) error {
	b := c.b
	if b == nil || b.limit <= 0 || total <= c.held {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	others := b.used - c.held
	if total > b.limit || others+total > b.limit {
		return &Error{What: c.what, Need: total, Limit: b.limit, Others: others, Rows: rows, Busy: total <= b.limit}
	}
	b.used += total - c.held
	c.held = total
	return nil
}

// Held is the bytes the claim holds.
func (c *Claim) Held() int64 { return c.held }

// Release gives back what the claim holds. It may be called more than
// once.
func (c *Claim) Release() {
	if c.b == nil || c.held == 0 {
		return
	}
	c.b.mu.Lock()
	c.b.used -= c.held
	c.b.mu.Unlock()
	c.held = 0
}

// Error refuses a claim: what needs Need bytes, and the budget is Limit,
// of which Others are held by other claims.
type Error struct {
	What         string
	Need, Limit  int64
	Others, Rows int64
	// Busy is true when the claim fits the budget alone, but not beside
	// the others: it may be tried again once they are done.
	Busy bool
}

// Error says what was refused and what would fit.
func (e *Error) Error() string {
	if e.Busy {
		return fmt.Sprintf("%s needs about %s of the server's memory to read, and the uploads being read now hold %s of the %s it gives them; "+
			"try again when they are done", e.What, Bytes(e.Need), Bytes(e.Others), Bytes(e.Limit))
	}
	fit := ""
	if e.Rows > 0 {
		fit = fmt.Sprintf("; a file of about %s rows like these would fit", group(e.Rows*e.Limit/max(e.Need, 1)*9/10))
	}
	return fmt.Sprintf("%s would need about %s of the server's memory to read (its columns, labels and cells so far, and the rows the rest "+
		"of the file should hold), more than the %s it gives the uploads being read (-max-upload-memory)%s, or the server's administrator "+
		"can raise -max-upload-memory", e.What, Bytes(e.Need), Bytes(e.Limit), fit)
}

// Bytes is n bytes in words: "512 B", "1.5 KiB", "12.0 MiB", "3.2 GiB".
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// group writes n with its digits in groups of three: "1 234 567".
func group(n int64) string {
	s := strconv.FormatInt(max(n, 0), 10)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ' ')
		}
		out = append(out, s[i])
	}
	return string(out)
}
