// Package cleanbuild holds the proof that every command of contractkit
// does its job when built the way go install builds it: from a clean
// clone, with go build alone — no make target, no generated or built file
// that is not committed, no file of the repository read at run time.
//
// Its test clones the checkout's HEAD (uncommitted changes are not in the
// clone, which is the point), builds every command under cmd/ once, runs
// gen and contractdiff in the clone, then deletes the clone and runs every
// other command from an empty folder: agui check and agui serve (the page
// and every asset it names answer 200, and the checker it serves links
// against the loader it serves), eska tree, aictl smoke against
// aicontrol-sample, aicontrol-mcp listing its tools over stdio, and every
// command's --version naming the commit it was built from.
package cleanbuild
