package udiff

import (
	"fmt"
	"strings"
	"testing"
)

func lines(n int, f func(i int) string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(f(i) + "\n")
	}
	return b.String()
}

func TestUnified(t *testing.T) {
	a := lines(12, func(i int) string { return fmt.Sprint("line ", i) })
	b := strings.Replace(a, "line 2\n", "line two\n", 1)
	b = strings.Replace(b, "line 11\n", "", 1)
	got := Unified("a/f", "b/f", []byte(a), []byte(b))
	want := `--- a/f
+++ b/f
@@ -1,5 +1,5 @@
 line 1
-line 2
+line two
 line 3
 line 4
 line 5
@@ -8,5 +8,4 @@
 line 8
 line 9
 line 10
-line 11
 line 12
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestUnifiedMergesNearbyChanges(t *testing.T) {
	a := lines(10, func(i int) string { return fmt.Sprint(i) })
	b := strings.Replace(strings.Replace(a, "3\n", "three\n", 1), "8\n", "eight\n", 1)
	got := Unified("a", "b", []byte(a), []byte(b))
	if strings.Count(got, "@@ -") != 1 || !strings.Contains(got, "@@ -1,10 +1,10 @@") {
		t.Errorf("changes 4 lines apart should share one hunk:\n%s", got)
	}
}

func TestUnifiedNewAndMissingNewline(t *testing.T) {
	got := Unified("/dev/null", "b/new", nil, []byte("x\ny"))
	want := "--- /dev/null\n+++ b/new\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if Unified("a", "b", []byte("same\n"), []byte("same\n")) != "" {
		t.Error("equal inputs must give no diff")
	}
}
