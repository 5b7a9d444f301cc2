package store

import "testing"

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1048576", 1 << 20, true},
		{"1GiB", 1 << 30, true},
		{"500MB", 500e6, true},
		{"2g", 2 << 30, true},
		{" 1.5 KiB ", 1536, true},
		{"0", 0, false},
		{"-5", 0, false},
		{"lots", 0, false},
		{"1e30", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseBytes(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
