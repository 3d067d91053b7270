package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/contractkit/contractkit/agui/page"
	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/internal/loopback"
)

// DefaultPort is the port agui serve listens on unless told otherwise.
const DefaultPort = 4747

// The page is a handful of small files and one script of a few megabytes
// on loopback; these bound what a stuck or hostile client can hold.
const (
	readHeaderTimeout = 5 * time.Second
	writeTimeout      = time.Minute
	idleTimeout       = time.Minute
	maxHeaderBytes    = 16 << 10
	shutdownTimeout   = 5 * time.Second
)

const serveUsage = `agui serve shows the stand page in your browser, on this machine only.

Usage:
  agui serve [--port N] [--host ADDRESS]

It prints the page's address; open it, choose record files, and each is
checked in the browser by the same checker as agui check. The page contacts
no agent server and requests nothing beyond its own files. Ctrl+C stops it.

Options:
  --port N         the port to listen on (default %d; 0 picks a free one)
  --host ADDRESS   a loopback address: 127.0.0.1 (default), another
                   127.x.y.z, ::1 or localhost. Any other is refused: the
                   page is served to this machine only.
`

// serveCommand runs agui serve until stop is closed or, when stop is nil,
// until the process is interrupted. ready, when not nil, receives the
// page's URL once the server listens.
func serveCommand(args []string, stdout, stderr io.Writer, site func() (*page.Site, error), stop <-chan struct{}, ready chan<- string) int {
	fs := flag.NewFlagSet("agui serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	port := fs.Int("port", DefaultPort, "")
	host := fs.String("host", "127.0.0.1", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, serveUsage, DefaultPort)
			return exitAccepted
		}
		fmt.Fprintf(stderr, "agui serve: %v; run agui serve --help\n", err)
		return exitUnusable
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agui serve: unexpected argument %q; run agui serve --help\n", fs.Arg(0))
		return exitUnusable
	}
	ip, err := loopbackIP(*host)
	if err != nil {
		fmt.Fprintf(stderr, "agui serve: %v\n", err)
		return exitUnusable
	}
	if *port < 0 || *port > 65535 {
		fmt.Fprintf(stderr, "agui serve: --port %d is not a port (0 to 65535)\n", *port)
		return exitUnusable
	}
	s, err := site()
	if err == nil {
		err = s.Complete()
	}
	if err != nil {
		fmt.Fprintf(stderr, "agui serve: %v\n", err)
		return exitUnusable
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(*port)))
	if err != nil {
		fmt.Fprintf(stderr, "agui serve: %v\n", err)
		return exitUnusable
	}
	base := "http://" + ln.Addr().String()
	pageURL := base + page.EscapePath(contract.PagePath)
	fmt.Fprintf(stdout, "agui serve: the stand page is at %s\n", pageURL)
	fmt.Fprintf(stdout, "agui serve: its catalog is at %s\n", base+page.EscapePath(contract.PageCatalog))
	fmt.Fprintf(stdout, "agui serve: serving on loopback only; Ctrl+C stops\n")
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: readHeaderTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	if ready != nil {
		ready <- pageURL
	}
	if stop == nil {
		ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
		defer cancel()
		stop = ctx.Done()
	}
	select {
	case <-stop:
	case err := <-done:
		fmt.Fprintf(stderr, "agui serve: %v\n", err)
		return exitUnusable
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close()
	}
	fmt.Fprintln(stdout, "agui serve: stopped")
	return exitAccepted
}

// loopbackIP returns the loopback address host names, or why it is
// refused. localhost is taken as 127.0.0.1 without asking a resolver,
// which could answer with any address.
func loopbackIP(host string) (net.IP, error) {
	ip := loopback.IP(host)
	if ip == nil {
		return nil, fmt.Errorf("--host %q is not a loopback address: the page is served to this machine only (use 127.0.0.1, ::1 or localhost) [%s]", host, contract.RuleStandPageOffline)
	}
	return ip, nil
}
