package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Fold is one predefined training/test partition, as 0-based row indices.
type Fold struct {
	Train, Test []int
}

// maxFolds bounds the folds a file may define.
const maxFolds = 1000

// ParseFolds reads predefined cross-validation folds for a data set of rows
// rows: CSV with the header "fold,split,row" and one line per (fold, part,
// row), fold a positive integer, split "train" or "test", row the 1-based
// row number (as in the MDC benchmark files, e.g. edm-folds.csv). Every
// fold needs a test row and a training row, and no row may be in both
// parts of a fold. Folds come back in increasing fold number. Errors are
// *InputError with the line and column.
func ParseFolds(r io.Reader, rows int) ([]Fold, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	header := false
	folds := map[int]*Fold{}
	seen := map[int]map[int]string{}
	for sc.Scan() {
		line++
		text := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff"))
		if text == "" {
			continue
		}
		f := strings.Split(text, ",")
		if !header {
			if len(f) != 3 || strings.TrimSpace(f[0]) != "fold" || strings.TrimSpace(f[1]) != "split" || strings.TrimSpace(f[2]) != "row" {
				return nil, &InputError{Line: line, Field: "folds", Msg: "a folds file starts with the header fold,split,row"}
			}
			header = true
			continue
		}
		if len(f) != 3 {
			return nil, &InputError{Line: line, Field: "folds", Msg: fmt.Sprintf("expected 3 fields (fold,split,row), found %d", len(f))}
		}
		fold, err := strconv.Atoi(strings.TrimSpace(f[0]))
		if err != nil || fold < 1 {
			return nil, &InputError{Line: line, Column: "fold", Field: "folds", Msg: fmt.Sprintf("%s is not a fold number (1, 2, …)", quote(f[0]))}
		}
		part := strings.TrimSpace(f[1])
		if part != "train" && part != "test" {
			return nil, &InputError{Line: line, Column: "split", Field: "folds", Msg: fmt.Sprintf("%s must be train or test", quote(f[1]))}
		}
		row, err := strconv.Atoi(strings.TrimSpace(f[2]))
		if err != nil || row < 1 || row > rows {
			return nil, &InputError{Line: line, Column: "row", Field: "folds", Msg: fmt.Sprintf("%s is not a row number from 1 to %d", quote(f[2]), rows)}
		}
		fd, ok := folds[fold]
		if !ok {
			if len(folds) == maxFolds {
				return nil, &InputError{Line: line, Column: "fold", Field: "folds", Msg: fmt.Sprintf("more than %d folds", maxFolds)}
			}
			fd = &Fold{}
			folds[fold] = fd
			seen[fold] = map[int]string{}
		}
		if prev, dup := seen[fold][row]; dup {
			return nil, &InputError{Line: line, Column: "row", Field: "folds", Msg: fmt.Sprintf("row %d is already in the %s part of fold %d", row, prev, fold)}
		}
		seen[fold][row] = part
		if part == "train" {
			fd.Train = append(fd.Train, row-1)
		} else {
			fd.Test = append(fd.Test, row-1)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &InputError{Line: line + 1, Field: "folds", Msg: "a line is too long for a folds file"}
		}
		return nil, fmt.Errorf("reading the folds: %w", err)
	}
	if len(folds) == 0 {
		return nil, &InputError{Field: "folds", Msg: "the folds file defines no fold"}
	}
	keys := make([]int, 0, len(folds))
	for k := range folds {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]Fold, 0, len(keys))
	for _, k := range keys {
		fd := folds[k]
		if len(fd.Train) == 0 || len(fd.Test) == 0 {
			return nil, &InputError{Field: "folds", Msg: fmt.Sprintf("fold %d needs both training and test rows", k)}
		}
		slices.Sort(fd.Train)
		slices.Sort(fd.Test)
		out = append(out, *fd)
	}
	return out, nil
}
