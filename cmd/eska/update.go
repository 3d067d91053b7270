package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/selfupdate"
	"golang.org/x/term"
)

// The update command replaces this binary with a release from the signed
// channel (internal/selfupdate), or goes back to the binary it replaced.

const updateUsage = `usage: eska update [--check] [--to VERSION] [--allow-downgrade] [--json]
       eska update --rollback [--json]

  (no flag)          install the latest release, when it is newer
  --check            say what the channel offers; download and change nothing
  --to VERSION       install that version instead of the latest
  --allow-downgrade  permit a version below the running one
  --rollback         swap back to the binary the last update replaced
  --json             print the JSON of UpdateCheckResult, UpdateResult or
                     UpdateRollbackResult; a refusal prints {"error":{...}}
                     with an update_* kind, and the exit code is 1

The channel is a manifest signed with the release key built into this
binary (ESKA_UPDATE_URL names another manifest URL: a mirror). Proxies
come from HTTPS_PROXY and NO_PROXY. Whatever is refused, the binary is
left byte for byte as it was.
`

func runUpdate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("update", flag.ContinueOnError)
	fs.SetOutput(stderr)
	check := fs.Bool("check", false, "say what the channel offers; change nothing")
	to := fs.String("to", "", "the version to install (default: the latest)")
	allowDowngrade := fs.Bool("allow-downgrade", false, "permit a version below the running one")
	rollback := fs.Bool("rollback", false, "swap back to the binary the last update replaced")
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() { fmt.Fprint(stderr, updateUsage) }
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 || (*rollback && (*check || *to != "" || *allowDowngrade)) {
		fs.Usage()
		return 2
	}
	cfg := selfupdate.Config{Version: version, Key: releaseKey, URL: updateURL}
	if u := os.Getenv("ESKA_UPDATE_URL"); u != "" {
		cfg.URL = u
	}
	if !*asJSON && isTerminal(stderr) {
		cfg.Progress = progressBar(stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	out := editOutput{command: "update", json: *asJSON, stdout: stdout, stderr: stderr,
		errJSON: func(err error) string { return errorJSON(selfupdate.AsRPCError(err)) }, explain: describeUpdate}
	switch {
	case *rollback:
		r, err := selfupdate.Rollback(ctx, cfg)
		if err != nil {
			return out.fail(err)
		}
		return out.print(r, func() {
			fmt.Fprintf(stdout, "eska %s rolled back to %s (eska update --rollback again returns to %s)\n", r.From, r.To, r.From)
		})
	case *check:
		r, err := selfupdate.Check(ctx, cfg, *to)
		if err != nil {
			return out.fail(err)
		}
		return out.print(r, func() {
			switch {
			case r.Available && r.Downgrade:
				fmt.Fprintf(stdout, "eska %s; %s is available as a downgrade (latest %s): eska update --to %s --allow-downgrade\n", r.Current, r.Target, r.Latest, r.Target)
			case r.Available:
				fmt.Fprintf(stdout, "eska %s; %s is available: eska update%s\n", r.Current, r.Target, toFlag(*to))
			case r.Artifact == nil:
				fmt.Fprintf(stdout, "eska %s; %s has no binary for %s\n", r.Current, r.Target, r.Platform)
			default:
				fmt.Fprintf(stdout, "eska %s is up to date (latest %s)\n", r.Current, r.Latest)
			}
		})
	default:
		r, err := selfupdate.Update(ctx, cfg, selfupdate.Options{To: *to, AllowDowngrade: *allowDowngrade})
		if cfg.Progress != nil {
			fmt.Fprint(stderr, "\r\033[K")
		}
		if err != nil {
			return out.fail(err)
		}
		return out.print(r, func() {
			if !r.Updated {
				fmt.Fprintf(stdout, "eska %s is up to date\n", r.From)
				return
			}
			fmt.Fprintf(stdout, "eska updated from %s to %s (eska update --rollback goes back)\n", r.From, r.To)
		})
	}
}

func toFlag(to string) string {
	if to == "" {
		return ""
	}
	return " --to " + to
}

// describeUpdate is a refusal for a person: its kind and details.
func describeUpdate(err error) string {
	var re *gen.RPCError
	if !errors.As(err, &re) {
		return err.Error()
	}
	data, ok := re.Data.(gen.DomainErrorData)
	if !ok {
		return re.Message
	}
	var d gen.UpdateRefusalDetails
	json.Unmarshal(data.Details, &d)
	var parts []string
	add := func(name string, v *string) {
		if v != nil {
			parts = append(parts, name+" "+*v)
		}
	}
	if d.Reason != nil {
		parts = append(parts, string(*d.Reason))
	}
	add("url", d.URL)
	add("current", d.Current)
	add("version", d.Version)
	add("platform", d.Platform)
	add("expected", d.Expected)
	add("actual", d.Actual)
	add("expired", d.Expires)
	if d.Status != nil {
		parts = append(parts, fmt.Sprintf("status %d", *d.Status))
	}
	msg := string(data.Kind)
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, ", ")
	}
	return msg + "; the binary is unchanged"
}

// isTerminal reports whether w is a terminal. A character device is not
// enough: /dev/null is one, and a bar redrawn into it is work for nothing.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressBar draws the download's progress on one terminal line.
func progressBar(w io.Writer) func(done, total int64) {
	const width = 30
	return func(done, total int64) {
		if total <= 0 {
			return
		}
		n := int(done * width / total)
		fmt.Fprintf(w, "\r[%s%s] %5.1f%% %d/%d KiB", strings.Repeat("=", n), strings.Repeat(" ", width-n),
			float64(done)*100/float64(total), done>>10, total>>10)
	}
}
