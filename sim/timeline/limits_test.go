package timeline

import (
	"strings"
	"testing"
)

// TestReadJSONLLineLimit holds the line bound at its edge, whatever ends the
// line: the limit counts the event, not its line ending.
func TestReadJSONLLineLimit(t *testing.T) {
	event := func(size int) string {
		const open, end = `{"actor":"a","verb":"expect","detail":"`, `"}`
		return open + strings.Repeat("x", size-len(open)-len(end)) + end
	}
	const tooLong = "timeline line 2: longer than 16 MiB, the most a line may hold; is this a timeline (one JSON event per line)?"
	first := event(100) + "\n"
	for _, ending := range []string{"\n", "\r\n", ""} {
		t.Run(strings.NewReplacer("\r", "CR", "\n", "LF").Replace("end "+ending), func(t *testing.T) {
			tl, err := ReadJSONL(strings.NewReader(first + event(maxLine) + ending))
			if err != nil {
				t.Fatalf("a line of exactly %d bytes: %v", maxLine, err)
			}
			if n := len(tl.Events()); n != 2 {
				t.Fatalf("read %d events, want 2", n)
			}
			_, err = ReadJSONL(strings.NewReader(first + event(maxLine+1) + ending))
			if err == nil || err.Error() != tooLong {
				t.Errorf("a line of %d bytes: %v, want %q", maxLine+1, err, tooLong)
			}
		})
	}
}
