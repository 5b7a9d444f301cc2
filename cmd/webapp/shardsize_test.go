package main

import (
	"io"
	"strings"
	"testing"
)

// -shard-size (MLDR_SHARD_SIZE) takes bytes with a unit, 256 MiB by
// default, at least 1 MiB.
func TestShardSizeFlag(t *testing.T) {
	cases := []struct {
		args []string
		env  string
		want int64 // 0: refused
	}{
		{nil, "", 256 << 20},
		{[]string{"-shard-size", "64MiB"}, "", 64 << 20},
		{nil, "2GiB", 2 << 30},
		{[]string{"-shard-size", "1MiB"}, "8MiB", 1 << 20},
		{[]string{"-shard-size", "1000"}, "", 0},
		{[]string{"-shard-size", "big"}, "", 0},
		{nil, "0", 0},
	}
	for _, tc := range cases {
		c, err := parseConfig(tc.args, func(k string) string {
			if k == "MLDR_SHARD_SIZE" {
				return tc.env
			}
			return ""
		}, io.Discard)
		switch {
		case tc.want == 0 && (err == nil || !strings.Contains(err.Error(), "-shard-size must be at least 1 MiB")):
			t.Errorf("%q, env %q: got %v, want the error naming -shard-size and its least value", tc.args, tc.env, err)
		case tc.want != 0 && (err != nil || c.shardSize != tc.want):
			t.Errorf("%q, env %q: got %d, %v; want %d", tc.args, tc.env, c.shardSize, err, tc.want)
		}
	}
}
