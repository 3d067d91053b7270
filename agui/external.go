package agui

// Entry points for callers that read input by rules of their own before
// the checker sees it: the stand page's programmatic input of JavaScript
// values refuses what has no JSON form (functions, getters, cycles) in
// JavaScript, where those values live, and hands the checker either the
// copied value or the finding that refused it.

// TutorialSource is the name the tutorial example's result carries as its
// source, in every front end: the command line and the page.
const TutorialSource = "built-in tutorial example"

// RejectInput returns the result of an input refused before any event was
// checked, by a rule of the caller's own: f is its only finding, and the
// result has the shape every other rejected result has. It returns an
// *InputError for an unknown profile.
func RejectInput(f Finding, opt Options) (*Result, error) {
	p, m, err := setup(opt)
	if err != nil {
		return nil, err
	}
	return newChecker(p, m, opt).stop(&fail{f}), nil
}
