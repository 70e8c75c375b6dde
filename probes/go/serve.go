// The serve experiment of the Go probe: seed S2's coroutine server, the Go way — net/http, one
// goroutine per connection, the blocking call made with time.Sleep (which parks the goroutine,
// not its thread). It answers once it listens; the server then runs in the background until the
// harness closes stdin and the probe exits. Compiled only into the server build of the probe
// (net/http is a large build with an empty Go build cache).
//
//	args.blocking_ms  the blocking call per request (0: none; seed S2's scenario B: 10)
package main

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"
)

// body is concbench's own servers' response body (crates/concbench-server/src/protocol.rs).
var body = []byte("Hello, world\n")

var serving bool

func init() {
	experiments["serve"] = serve
	names = append(names, "serve")
}

func serve(_ int64, args map[string]any) (result, error) {
	if serving {
		return result{}, fmt.Errorf("this probe already serves; start another probe for another server")
	}
	blocking, err := nonNegativeInt(args, "blocking_ms")
	if err != nil {
		return result{}, err
	}
	start := time.Now()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return result{}, err
	}
	delay := time.Duration(blocking) * time.Millisecond
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if delay > 0 {
			time.Sleep(delay)
		}
		h := w.Header()
		h.Set("Content-Type", "text/plain")
		h.Set("Content-Length", "13")
		_, _ = w.Write(body)
	})
	// Stdout belongs to the protocol and stderr to crash reports: connection errors go nowhere.
	srv := &http.Server{Handler: handler, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = srv.Serve(ln) }()
	serving = true
	port := ln.Addr().(*net.TCPAddr).Port
	return result{elapsed: time.Since(start), ops: 1, port: port}, nil
}

func nonNegativeInt(args map[string]any, key string) (int, error) {
	v, ok := args[key]
	if !ok {
		return 0, nil
	}
	f, ok := v.(float64)
	if !ok || f < 0 || f != float64(int(f)) {
		return 0, fmt.Errorf("args.%s must be a non-negative integer, not %v", key, v)
	}
	return int(f), nil
}
