package agui

// What the external tests of package agui_test (loopback_test.go) share
// with the internal ones: they import agui/livecheck, which imports agui,
// so they cannot be in package agui.
var (
	LargeSSE = largeSSE
	PerEvent = perEvent
)
