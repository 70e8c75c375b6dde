// concbench probe in Go: goroutines asked the questions concbench asks of processes and threads,
// behind the probe protocol (docs/PROBE_PROTOCOL.md). Standard library only: building it needs
// no module download.
//
//	create          go func(){ wg.Done() }() + wg.Wait(): a goroutine created, run and joined
//	pingpong        two goroutines hand a value over unbuffered channels (one op = one hand-over)
//	pingpong_locked the same with both goroutines locked to their OS threads (LockOSThread), so
//	                every hand-over is an OS thread switch
//	memory          N goroutines blocked on a channel: bytes per goroutine, by Go's accounting
//	serve           start a net/http server and answer its port (serve.go, compiled only into
//	                the server build so the other experiments' build stays small)
//	hold            N more goroutines blocked on a channel, kept until the probe exits
//	                (concbench capacity): time per goroutine until it blocks; metrics created, held
//	detect          what the runtime sized itself for: GOMAXPROCS (quota-aware since Go 1.25),
//	                NumCPU (the affinity mask), in metrics
//
// Every request may carry args.gomaxprocs; the runtime's setting is restored afterwards.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
)

const protocol = 1

type request struct {
	V          int            `json:"v"`
	ID         string         `json:"id"`
	Iterations int64          `json:"iterations"`
	Args       map[string]any `json:"args"`
}

type usage struct {
	VoluntarySwitches   float64 `json:"voluntary_switches"`
	InvoluntarySwitches float64 `json:"involuntary_switches"`
	MinorFaults         float64 `json:"minor_faults"`
	MajorFaults         float64 `json:"major_faults"`
	UserNs              float64 `json:"user_ns"`
	SysNs               float64 `json:"sys_ns"`
}

type response struct {
	V       int                `json:"v"`
	OK      bool               `json:"ok"`
	Error   string             `json:"error,omitempty"`
	NsPerOp float64            `json:"ns_per_op,omitempty"`
	Ops     int64              `json:"ops,omitempty"`
	Port    int                `json:"port,omitempty"`
	Value   *float64           `json:"value,omitempty"`
	Usage   *usage             `json:"usage,omitempty"`
	Metrics map[string]float64 `json:"metrics,omitempty"`
}

type hello struct {
	V           int      `json:"v"`
	Hello       string   `json:"hello"`
	Runtime     string   `json:"runtime"`
	Version     string   `json:"version"`
	Experiments []string `json:"experiments"`
}

// result is what one experiment measured: elapsed time over ops, or a value in its own unit.
type result struct {
	elapsed time.Duration
	ops     int64
	value   *float64
	metrics map[string]float64
	// port: where a started server listens (the serve experiment).
	port int
}

type experiment func(n int64, args map[string]any) (result, error)

// ignoreArgs adapts an experiment that reads no args beyond gomaxprocs (handled for every one).
func ignoreArgs(f func(n int64) (result, error)) experiment {
	return func(n int64, _ map[string]any) (result, error) { return f(n) }
}

var experiments = map[string]experiment{
	"create":          ignoreArgs(create),
	"pingpong":        ignoreArgs(func(n int64) (result, error) { return pingpong(n, false) }),
	"pingpong_locked": ignoreArgs(func(n int64) (result, error) { return pingpong(n, true) }),
	"memory":          ignoreArgs(memory),
	"hold":            ignoreArgs(hold),
	"detect":          ignoreArgs(detect),
}

// names lists the experiments in the greeting, in this order (serve.go adds "serve").
var names = []string{"create", "pingpong", "pingpong_locked", "memory", "hold", "detect"}

// held counts the goroutines hold keeps blocked on holdForever, which is never closed: they end
// with the probe.
var (
	held        int64
	holdForever = make(chan struct{})
)

// hold: n more goroutines, each blocked on holdForever once it has counted in. The time is until
// every new one is blocked. A goroutine that cannot be created ends the whole program (the Go
// runtime has no error for it), which the harness reads as the probe's exit.
func hold(n int64) (result, error) {
	var started sync.WaitGroup
	started.Add(int(n))
	start := time.Now()
	for i := int64(0); i < n; i++ {
		go func() {
			started.Done()
			<-holdForever
		}()
	}
	started.Wait()
	elapsed := time.Since(start)
	held += n
	return result{elapsed: elapsed, ops: n, metrics: map[string]float64{
		"created": float64(n), "held": float64(held),
	}}, nil
}

// detect: what the runtime sized itself for. GOMAXPROCS(0) reads without changing it.
func detect(int64) (result, error) {
	start := time.Now()
	procs := runtime.GOMAXPROCS(0)
	return result{elapsed: time.Since(start), ops: 1, metrics: map[string]float64{
		"gomaxprocs": float64(procs), "num_cpu": float64(runtime.NumCPU()),
	}}, nil
}

func create(n int64) (result, error) {
	var wg sync.WaitGroup
	start := time.Now()
	for i := int64(0); i < n; i++ {
		wg.Add(1)
		go func() { wg.Done() }()
		wg.Wait()
	}
	return result{elapsed: time.Since(start), ops: n}, nil
}

// pingpong: one op is one one-way hand-over, so n/2 round trips (at least one).
func pingpong(n int64, locked bool) (result, error) {
	trips := max(n/2, 1)
	ping, pong := make(chan int), make(chan int)
	if locked {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	go func() {
		if locked {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
		}
		for i := int64(0); i <= trips; i++ {
			pong <- <-ping
		}
	}()
	// One untimed round trip: the partner is running (and locked) before the clock starts.
	ping <- 0
	<-pong
	start := time.Now()
	for i := int64(0); i < trips; i++ {
		ping <- 1
		<-pong
	}
	return result{elapsed: time.Since(start), ops: 2 * trips}, nil
}

// memory: n goroutines blocked at once. Measured with the runtime's accounting (stack in use
// plus live heap, after a GC) rather than RSS: the runtime keeps freed memory mapped, so RSS would
// not come back down between repetitions.
func memory(n int64) (result, error) {
	var before, after runtime.MemStats
	stop := make(chan struct{})
	var started, done sync.WaitGroup
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	for i := int64(0); i < n; i++ {
		started.Add(1)
		done.Add(1)
		go func() {
			started.Done()
			<-stop
			done.Done()
		}()
	}
	started.Wait()
	elapsed := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	close(stop)
	done.Wait()
	stack := float64(after.StackInuse) - float64(before.StackInuse)
	heap := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	perKiB := (stack + heap) / float64(n) / 1024
	return result{
		elapsed: elapsed,
		ops:     n,
		value:   &perKiB,
		metrics: map[string]float64{
			"stack_kib_per_goroutine": stack / float64(n) / 1024,
			"heap_kib_per_goroutine":  heap / float64(n) / 1024,
			"create_ns":               float64(elapsed.Nanoseconds()) / float64(n),
		},
	}, nil
}

func tvNs(tv syscall.Timeval) float64 { return float64(tv.Sec)*1e9 + float64(tv.Usec)*1e3 }

// readUsage: this process and its reaped children (a Go probe starts none).
func readUsage() usage {
	var s, c syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &s)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
	return usage{
		VoluntarySwitches:   float64(s.Nvcsw + c.Nvcsw),
		InvoluntarySwitches: float64(s.Nivcsw + c.Nivcsw),
		MinorFaults:         float64(s.Minflt + c.Minflt),
		MajorFaults:         float64(s.Majflt + c.Majflt),
		UserNs:              tvNs(s.Utime) + tvNs(c.Utime),
		SysNs:               tvNs(s.Stime) + tvNs(c.Stime),
	}
}

func (a usage) until(b usage) usage {
	return usage{
		b.VoluntarySwitches - a.VoluntarySwitches, b.InvoluntarySwitches - a.InvoluntarySwitches,
		b.MinorFaults - a.MinorFaults, b.MajorFaults - a.MajorFaults,
		b.UserNs - a.UserNs, b.SysNs - a.SysNs,
	}
}

func gomaxprocs(args map[string]any) (int, error) {
	v, ok := args["gomaxprocs"]
	if !ok {
		return 0, nil
	}
	f, ok := v.(float64)
	if !ok || f < 1 || f != float64(int(f)) {
		return 0, fmt.Errorf("args.gomaxprocs must be a positive integer, not %v", v)
	}
	return int(f), nil
}

func handle(line []byte) response {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return response{V: protocol, Error: "the request is not JSON: " + err.Error()}
	}
	if req.V != protocol {
		return response{V: protocol, Error: fmt.Sprintf("protocol version %d not supported (this probe speaks %d)", req.V, protocol)}
	}
	run, ok := experiments[req.ID]
	if !ok || req.Iterations < 1 {
		return response{V: protocol, Error: fmt.Sprintf("unknown experiment %q or iterations < 1", req.ID)}
	}
	procs, err := gomaxprocs(req.Args)
	if err != nil {
		return response{V: protocol, Error: err.Error()}
	}
	if procs > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	}
	before := readUsage()
	r, err := run(req.Iterations, req.Args)
	used := before.until(readUsage())
	if err != nil {
		return response{V: protocol, Error: err.Error()}
	}
	return response{
		V: protocol, OK: true, Ops: r.ops, Value: r.value, Usage: &used, Metrics: r.metrics, Port: r.port,
		NsPerOp: float64(r.elapsed.Nanoseconds()) / float64(r.ops),
	}
}

func main() {
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	version := fmt.Sprintf("%s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	_ = enc.Encode(hello{protocol, "concbench-probe", "go", version, names})
	_ = out.Flush()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<16), 1<<20)
	for in.Scan() {
		_ = enc.Encode(handle(in.Bytes()))
		_ = out.Flush()
	}
	// EOF: the harness is done with us.
}
