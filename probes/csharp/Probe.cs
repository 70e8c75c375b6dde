// concbench probe in C#: seed S1's program (its ThreadTester classes, counting to N one
// increment at a time), behind the probe protocol (docs/PROBE_PROTOCOL.md). Built with Mono's
// mcs and run on the Mono runtime (the article ran .NET on Windows, which is not available here).
//
//   single      SingleThreadTester: one thread counts to N
//   alternate   TwoThreadSwitchTester: two threads take turns through ONE AutoResetEvent, as
//               the article wrote it (a thread may consume its own Set and count twice)
//   lock        MultiThreadTester: args.threads threads increment under one `lock`
//
// One op is one increment. The clock starts before the threads are created, as the article's
// Stopwatch did, and stops when the count is reached. Context switches come from getrusage
// (P/Invoke into libc), the article's other figure.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;

public static class Probe
{
    const int Protocol = 1;

    // ---- usage: getrusage(RUSAGE_SELF), Linux LP64 layout of struct rusage

    [StructLayout(LayoutKind.Sequential)]
    struct Rusage
    {
        public long UtimeSec, UtimeUsec, StimeSec, StimeUsec;
        public long Maxrss, Ixrss, Idrss, Isrss, Minflt, Majflt, Nswap, Inblock, Oublock;
        public long Msgsnd, Msgrcv, Nsignals, Nvcsw, Nivcsw;
    }

    [DllImport("libc", SetLastError = true)]
    static extern int getrusage(int who, out Rusage usage);

    /// {voluntary, involuntary, minor faults, major faults, user ns, sys ns}
    static double[] Usage()
    {
        Rusage r;
        if (getrusage(0, out r) != 0) return null;
        return new double[] {
            r.Nvcsw, r.Nivcsw, r.Minflt, r.Majflt,
            r.UtimeSec * 1e9 + r.UtimeUsec * 1e3, r.StimeSec * 1e9 + r.StimeUsec * 1e3 };
    }

    // ---- the article's testers: a shared counter, a Stopwatch, threads

    sealed class Counter
    {
        public long Value;
        public readonly Stopwatch Clock = new Stopwatch();
        public readonly object Lock = new object();
    }

    static long Single(long n)
    {
        var c = new Counter();
        c.Clock.Start();
        var t = new Thread(() => {
            while (true) {
                if (c.Value >= n) { c.Clock.Stop(); break; }
                c.Value += 1;
            }
        });
        t.Start();
        t.Join();
        return c.Clock.Elapsed.Ticks * 100;
    }

    static long Alternate(long n)
    {
        var c = new Counter();
        var ev = new AutoResetEvent(false);
        var done = false;
        c.Clock.Start();
        var t1 = new Thread(() => {
            while (true) {
                ev.WaitOne();
                if (Volatile.Read(ref done)) break;
                c.Value += 1;
                if (c.Value >= n) { c.Clock.Stop(); Volatile.Write(ref done, true); ev.Set(); break; }
                ev.Set();
            }
        });
        var t2 = new Thread(() => {
            while (true) {
                ev.Set();
                ev.WaitOne();
                if (Volatile.Read(ref done)) { ev.Set(); break; }
                c.Value += 1;
                if (c.Value >= n) { c.Clock.Stop(); Volatile.Write(ref done, true); ev.Set(); break; }
            }
        });
        t1.Start();
        t2.Start();
        t1.Join();
        t2.Join();
        return c.Clock.Elapsed.Ticks * 100;
    }

    static long Locked(long n, int threads)
    {
        var c = new Counter();
        var all = new List<Thread>();
        c.Clock.Start();
        for (int i = 0; i < threads; i++) {
            var t = new Thread(() => {
                while (true) {
                    lock (c.Lock) {
                        if (c.Value >= n) { c.Clock.Stop(); break; }
                        c.Value += 1;
                    }
                }
            });
            t.Start();
            all.Add(t);
        }
        foreach (var t in all) t.Join();
        return c.Clock.Elapsed.Ticks * 100;
    }

    // ---- protocol

    static string Handle(string line)
    {
        Dictionary<string, object> req;
        try {
            req = new Json(line).Value() as Dictionary<string, object>;
            if (req == null) return Error("the request is not a JSON object");
        } catch (Exception e) {
            return Error("the request is not JSON: " + e.Message);
        }
        if (!(req.ContainsKey("v") && Equals(req["v"], (double) Protocol)))
            return Error("protocol version not supported (this probe speaks " + Protocol + ")");
        object id, iterations;
        req.TryGetValue("id", out id);
        req.TryGetValue("iterations", out iterations);
        if (!(id is string) || !(iterations is double) || (double) iterations < 1)
            return Error("a request needs \"id\" and \"iterations\" >= 1");
        object a;
        var args = req.TryGetValue("args", out a) && a is Dictionary<string, object>
            ? (Dictionary<string, object>) a : new Dictionary<string, object>();
        long n = (long) (double) iterations;
        try {
            double[] before = Usage();
            long ns;
            switch ((string) id) {
                case "single": ns = Single(n); break;
                case "alternate": ns = Alternate(n); break;
                case "lock": ns = Locked(n, ThreadsArg(args)); break;
                default: return Error("unknown experiment '" + id + "'");
            }
            double[] after = Usage();
            return Ok(ns, n, before, after);
        } catch (Exception e) {
            return Error(e.GetType().Name + ": " + e.Message);
        }
    }

    static int ThreadsArg(Dictionary<string, object> args)
    {
        object v;
        if (!args.TryGetValue("threads", out v) || !(v is double) || (double) v < 1)
            throw new ArgumentException("args.threads must be a positive integer");
        return (int) (double) v;
    }

    static readonly string[] UsageKeys = {
        "voluntary_switches", "involuntary_switches", "minor_faults", "major_faults", "user_ns", "sys_ns" };

    static string Num(double v)
    {
        return v.ToString("R", CultureInfo.InvariantCulture);
    }

    static string Ok(long ns, long ops, double[] before, double[] after)
    {
        var s = new StringBuilder("{\"v\":" + Protocol + ",\"ok\":true");
        s.Append(",\"ns_per_op\":").Append(Num((double) ns / ops)).Append(",\"ops\":").Append(ops);
        if (before != null && after != null) {
            s.Append(",\"usage\":{");
            for (int i = 0; i < UsageKeys.Length; i++) {
                if (i > 0) s.Append(',');
                s.Append('"').Append(UsageKeys[i]).Append("\":").Append(Num(after[i] - before[i]));
            }
            // The article's figure: context switches over a count to 1e8, at this run's rate.
            double switches = after[0] - before[0] + after[1] - before[1];
            s.Append("},\"metrics\":{\"context_switches_per_1e8\":")
                .Append(Num(switches / ops * 1e8)).Append('}');
        }
        return s.Append('}').ToString();
    }

    static string Error(string message)
    {
        return "{\"v\":" + Protocol + ",\"ok\":false,\"error\":" + Json.Quote(message) + "}";
    }

    static string RuntimeVersion()
    {
        var mono = Type.GetType("Mono.Runtime");
        var name = mono == null ? null
            : mono.GetMethod("GetDisplayName", BindingFlags.NonPublic | BindingFlags.Static);
        return (name != null ? "Mono " + name.Invoke(null, null) : ".NET " + Environment.Version)
            + " on " + Environment.OSVersion;
    }

    public static int Main()
    {
        var stdout = Console.OpenStandardOutput();
        var output = new System.IO.StreamWriter(stdout, new UTF8Encoding(false));
        output.WriteLine("{\"v\":" + Protocol + ",\"hello\":\"concbench-probe\",\"runtime\":\"csharp\",\"version\":"
            + Json.Quote(RuntimeVersion()) + ",\"experiments\":[\"single\",\"alternate\",\"lock\"]}");
        output.Flush();
        var input = new System.IO.StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
        for (string line; (line = input.ReadLine()) != null; ) {  // EOF: the harness is done with us
            output.WriteLine(Handle(line));
            output.Flush();
        }
        return 0;
    }

    /// A small JSON reader (objects, arrays, strings, numbers as double, booleans, null): Mono's
    /// minimal runtime package has no JSON library, and the probe must need nothing beyond it.
    sealed class Json
    {
        readonly string s;
        int i;

        public Json(string s) { this.s = s; }

        public object Value()
        {
            Skip();
            if (i >= s.Length) throw new FormatException("unexpected end");
            char c = s[i];
            if (c == '{') return Obj();
            if (c == '[') return Arr();
            if (c == '"') return Str();
            if (string.CompareOrdinal(s, i, "true", 0, 4) == 0) { i += 4; return true; }
            if (string.CompareOrdinal(s, i, "false", 0, 5) == 0) { i += 5; return false; }
            if (string.CompareOrdinal(s, i, "null", 0, 4) == 0) { i += 4; return null; }
            int start = i;
            while (i < s.Length && "+-0123456789.eE".IndexOf(s[i]) >= 0) i++;
            if (start == i) throw new FormatException("unexpected '" + c + "' at " + i);
            return double.Parse(s.Substring(start, i - start), CultureInfo.InvariantCulture);
        }

        Dictionary<string, object> Obj()
        {
            var m = new Dictionary<string, object>();
            i++;
            Skip();
            if (Peek('}')) return m;
            do {
                Skip();
                string key = Str();
                Skip();
                Expect(':');
                m[key] = Value();
                Skip();
            } while (Peek(','));
            Expect('}');
            return m;
        }

        List<object> Arr()
        {
            var l = new List<object>();
            i++;
            Skip();
            if (Peek(']')) return l;
            do {
                l.Add(Value());
                Skip();
            } while (Peek(','));
            Expect(']');
            return l;
        }

        string Str()
        {
            Expect('"');
            var b = new StringBuilder();
            while (i < s.Length && s[i] != '"') {
                char c = s[i++];
                if (c != '\\') { b.Append(c); continue; }
                char e = s[i++];
                switch (e) {
                    case 'n': b.Append('\n'); break;
                    case 't': b.Append('\t'); break;
                    case 'u': b.Append((char) Convert.ToInt32(s.Substring(i, 4), 16)); i += 4; break;
                    default: b.Append(e); break;
                }
            }
            Expect('"');
            return b.ToString();
        }

        void Skip() { while (i < s.Length && char.IsWhiteSpace(s[i])) i++; }

        bool Peek(char c)
        {
            if (i < s.Length && s[i] == c) { i++; return true; }
            return false;
        }

        void Expect(char c)
        {
            if (!Peek(c)) throw new FormatException("expected '" + c + "' at " + i);
        }

        public static string Quote(string v)
        {
            var b = new StringBuilder("\"");
            foreach (char c in v) {
                if (c == '"' || c == '\\') b.Append('\\').Append(c);
                else if (c < 0x20) b.Append(' ');
                else b.Append(c);
            }
            return b.Append('"').ToString();
        }
    }
}
