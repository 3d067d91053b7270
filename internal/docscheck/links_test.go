package docscheck

import (
	"testing"
)

// linkFixture is a small tree: two pages in the set, plus files and
// directories that exist only on "disk".
func linkFixture(t *testing.T, src string) []Problem {
	t.Helper()
	en, probs := Parse("Docs/en/reference/p/index.md", lines(
		`# <a id="p.top"></a>Top`,
		``,
		src,
	))
	wantProblems(t, probs)
	methods, _ := Parse("Docs/en/reference/p/methods.md", lines(`<a id="p.method.act"></a><a id="a$b"></a>`))
	pages := map[string]*Page{en.Path: en, methods.Path: methods}
	disk := map[string]bool{
		"bridge/server.go":                  true,
		"bridge":                            true,
		".":                                 true,
		"README.md":                         true,
		"Docs/ru/reference/p/index.md":      true,
		"Docs/en/reference/p/with space.md": true,
	}
	return CheckLinks(pages, func(p string) bool { return disk[p] })
}

func TestCheckLinksValid(t *testing.T) {
	probs := linkFixture(t, string(lines(
		`[m](methods.md#p.method.act) [self](#p.top) [top](#) [plain](methods.md)`,
		`[enc](methods.md#a%24b) [raw](methods.md#a$b) [q](methods.md?x=1#p.method.act)`,
		`[code](../../../../bridge/server.go) [dir](../../../../bridge/) [root](../../../..)`,
		`[ru](../../../ru/reference/p/index.md) [sp](with%20space.md) [abs](/bridge/server.go)`,
		`[file frag](../../../../bridge/server.go#L10) [ext](https://example.com/x.md#nope)`,
		`[mail](mailto:someone@example.com) <a href="methods.md#p.method.act">html</a>`,
	)))
	wantProblems(t, probs)
}

func TestCheckLinksMissingFile(t *testing.T) {
	wantProblems(t, linkFixture(t, `[x](nope.md)`),
		`Docs/en/reference/p/index.md:3: broken link "nope.md": Docs/en/reference/p/nope.md does not exist`)
}

func TestCheckLinksMissingAnchor(t *testing.T) {
	wantProblems(t, linkFixture(t, `[x](methods.md#p.method.gone)`),
		`Docs/en/reference/p/index.md:3: broken link "methods.md#p.method.gone": no anchor "p.method.gone" in Docs/en/reference/p/methods.md`)
}

func TestCheckLinksMissingSelfAnchor(t *testing.T) {
	wantProblems(t, linkFixture(t, `Heading slugs are not anchors: [x](#top)`),
		`Docs/en/reference/p/index.md:3: broken link "#top": no anchor "top" in Docs/en/reference/p/index.md`)
}

func TestCheckLinksEscapesRoot(t *testing.T) {
	wantProblems(t, linkFixture(t, `[x](../../../../../etc/passwd)`),
		`Docs/en/reference/p/index.md:3: link "../../../../../etc/passwd" leads outside the repository root`)
}

func TestCheckLinksFragmentIntoUncheckedPage(t *testing.T) {
	wantProblems(t, linkFixture(t, `[x](../../../ru/reference/p/index.md#p.top)`),
		`Docs/en/reference/p/index.md:3: link "../../../ru/reference/p/index.md#p.top": cannot verify anchor "p.top" because Docs/ru/reference/p/index.md is not among the checked pages`)
}

func TestCheckLinksEmptyDestination(t *testing.T) {
	wantProblems(t, linkFixture(t, `[x]()`),
		`Docs/en/reference/p/index.md:3: link has an empty destination`)
}

func TestCheckLinksMalformedPercent(t *testing.T) {
	wantProblems(t, linkFixture(t, `[x](bad%zz.md)`),
		`Docs/en/reference/p/index.md:3: link "bad%zz.md" has malformed percent-encoding`)
}

func TestCheckLinksRawHTMLHref(t *testing.T) {
	wantProblems(t, linkFixture(t, `<a href='gone.md'>x</a>`),
		`Docs/en/reference/p/index.md:3: broken link "gone.md": Docs/en/reference/p/gone.md does not exist`)
}

func TestCheckLinksNilExists(t *testing.T) {
	pg, _ := Parse("a.md", lines(`[b](b.md) [a](a.md)`))
	wantProblems(t, CheckLinks(map[string]*Page{"a.md": pg, "nil.md": nil}, nil),
		`a.md:1: broken link "b.md": b.md does not exist`)
}

func TestIsAbsoluteURL(t *testing.T) {
	for dest, want := range map[string]bool{
		"https://x":   true,
		"mailto:a@b":  true,
		"//cdn/x":     true,
		"git+ssh://x": true,
		"a.md":        false,
		"a.md#x:y":    false,
		"dir/a:b.md":  false,
		"#x":          false,
		":x":          false,
		"1ab:x":       false,
	} {
		if got := isAbsoluteURL(dest); got != want {
			t.Errorf("isAbsoluteURL(%q) = %v, want %v", dest, got, want)
		}
	}
}
