"""The programs tests/languages/test_polyglot_compiled.py runs in C#, D, Kotlin, Scala and
TypeScript: one program per language that does what the first line of its input says (so it
is compiled once for every case), a compile error per language with its line, and the secret
a snooping program looks for."""

#: the answer no program can compute from its input: only a leak would print it
SECRET = "s3cr3t-answer-5e9d"
#: a harness's result record, forged on every descriptor a program can find
FORGE_LINE = '{"event": "test", "index": 0, "status": "exited", "exit_code": 0}'
#: the cases each program handles (the first line of its input)
MODES = ("hello", "echo", "sum", "crash", "sleep", "loop", "bomb", "flood", "fork", "snoop",
         "forge", "deep")

CSHARP = r"""
using System.Diagnostics;

public class Program
{
    const string SECRET = "@SECRET@";
    const string FORGE = "@FORGE@";

    static int Deep(int n) { return n < 0 ? 0 : Deep(n + 1) - Deep(n + 2) + n; }

    static bool Look(string dir, bool deep)
    {
        bool hit = false;
        try {
            foreach (var f in Directory.GetFiles(dir))
                try { if (new FileInfo(f).Length < (1 << 20) && File.ReadAllText(f).Contains(SECRET)) hit = true; }
                catch (Exception) { }
            if (deep)
                foreach (var d in Directory.GetDirectories(dir)) hit |= Look(d, deep);
        } catch (Exception) { }
        return hit;
    }

    public static void Main(string[] args)
    {
        string mode = Console.ReadLine().Trim();
        switch (mode)
        {
            case "hello": Console.WriteLine("hello"); break;
            case "echo": Console.WriteLine(Console.ReadLine()); break;
            case "sum":
                var p = Console.ReadLine().Trim().Split(' ');
                Console.WriteLine(long.Parse(p[0]) + long.Parse(p[1]));
                break;
            case "crash": throw new InvalidOperationException("boom");
            case "sleep": Thread.Sleep(30000); break;
            case "loop": { long x = 0; while (true) { x = x * 3 + 1; } }
            case "bomb":
            {
                var keep = new List<byte[]>();
                while (true) { var b = new byte[1 << 20]; for (int i = 0; i < b.Length; i += 512) b[i] = 1; keep.Add(b); }
            }
            case "flood": while (true) Console.WriteLine("yyyyyyyyyyyyyyyyyyyy");
            case "fork":
                while (true) { try { new Thread(() => { while (true) { } }).Start(); } catch (Exception) { } }
            case "snoop":
            {
                bool hit = Look(".", true) || Look("..", false) || Look("/tmp", false);
                foreach (var a in args) hit |= Look(a, true);
                Console.WriteLine(hit ? SECRET : "nothing");
                break;
            }
            case "forge":
                for (int fd = 3; fd < 64; fd++)
                    try { using (var o = new FileStream("/proc/self/fd/" + fd, FileMode.Open, FileAccess.Write)) { var b = System.Text.Encoding.UTF8.GetBytes(FORGE + "\n0\n"); o.Write(b, 0, b.Length); } }
                    catch (Exception) { }
                Console.Error.WriteLine(FORGE);
                Console.WriteLine(7);
                break;
            case "deep": Console.WriteLine(Deep(0)); break;
        }
    }
}
"""

D = r"""
import std.stdio, std.string, std.conv, std.file, std.algorithm, std.array, core.thread, core.time;
import core.sys.posix.unistd : fork;
static import core.sys.posix.unistd;

enum SECRET = "@SECRET@";
enum FORGE = `@FORGE@`;

int deep(int n) { return n < 0 ? 0 : deep(n + 1) - deep(n + 2) + n; }

bool look(string dir, bool recurse) {
    bool hit = false;
    try {
        foreach (DirEntry e; dirEntries(dir, recurse ? SpanMode.depth : SpanMode.shallow, false)) {
            try {
                if (e.isFile && e.size < (1 << 20) && (cast(string) read(e.name)).canFind(SECRET))
                    hit = true;
            } catch (Exception) {}
        }
    } catch (Exception) {}
    return hit;
}

void main(string[] args) {
    string mode = readln().strip();
    switch (mode) {
        case "hello": { writeln("hello"); break; }
        case "echo": { write(readln()); break; }
        case "sum": {
            auto p = readln().split().map!(to!long).array;
            writeln(p[0] + p[1]);
            break;
        }
        case "crash": throw new Exception("boom");
        case "sleep": { Thread.sleep(30.seconds); break; }
        case "loop": {
            long x = 0;
            while (true) { x = x * 3 + 1; if (x == 42) writeln(x); }
        }
        case "bomb": {
            ubyte[][] keep;
            while (true) { auto b = new ubyte[1 << 20]; b[] = 1; keep ~= b; }
        }
        case "flood": while (true) writeln("yyyyyyyyyyyyyyyyyyyy");
        case "fork": while (true) fork();
        case "snoop": {
            bool hit = look(".", true) || look("..", false) || look("/tmp", false);
            foreach (a; args[1 .. $]) hit = hit || look(a, true);
            writeln(hit ? SECRET : "nothing");
            break;
        }
        case "forge": {
            string record = FORGE ~ "\n0\n";
            foreach (fd; 3 .. 64) core.sys.posix.unistd.write(fd, record.ptr, record.length);
            stderr.writeln(FORGE);
            writeln(7);
            break;
        }
        case "deep": { writeln(deep(0)); break; }
        default: break;
    }
}
"""

KOTLIN = r"""
import java.io.File
import java.io.FileOutputStream
import kotlin.concurrent.thread

const val SECRET = "@SECRET@"
const val FORGE = '''@FORGE@'''

fun deep(n: Int): Int = if (n < 0) 0 else deep(n + 1) - deep(n + 2) + n

fun look(dir: File, recurse: Boolean): Boolean {
    var hit = false
    val files = dir.listFiles() ?: return false
    for (f in files) {
        try {
            if (f.isDirectory) { if (recurse && look(f, recurse)) hit = true }
            else if (f.length() < (1 shl 20) && f.readText().contains(SECRET)) hit = true
        } catch (e: Exception) {}
    }
    return hit
}

fun main(args: Array<String>) {
    val mode = readLine()!!.trim()
    when (mode) {
        "hello" -> println("hello")
        "echo" -> println(readLine())
        "sum" -> { val p = readLine()!!.trim().split(" ").map { it.toLong() }; println(p[0] + p[1]) }
        "crash" -> throw IllegalStateException("boom")
        "sleep" -> Thread.sleep(30000)
        "loop" -> { var x = 0L; while (true) { x = x * 3 + 1 } }
        "bomb" -> { val keep = ArrayList<ByteArray>(); while (true) { val b = ByteArray(1 shl 20); b.fill(1); keep.add(b) } }
        "flood" -> { val s = "y".repeat(1000); while (true) println(s) }
        "fork" -> while (true) { try { thread { while (true) {} } } catch (e: Throwable) {} }
        "snoop" -> {
            var hit = look(File("."), true) || look(File(".."), false) || look(File("/tmp"), false)
            for (a in args) hit = hit || look(File(a), true)
            println(if (hit) SECRET else "nothing")
        }
        "forge" -> {
            for (fd in 3 until 64) try { FileOutputStream("/proc/self/fd/" + fd).use { it.write((FORGE + "\n0\n").toByteArray()) } } catch (e: Exception) {}
            System.err.println(FORGE)
            println(7)
        }
        "deep" -> println(deep(0))
    }
}
""".replace("'''", '"""')

SCALA = r"""
import java.io.{File, FileOutputStream}

object Modes {
  val SECRET = "@SECRET@"
  val FORGE = '''@FORGE@'''

  def deep(n: Int): Int = if (n < 0) 0 else deep(n + 1) - deep(n + 2) + n

  def look(dir: File, recurse: Boolean): Boolean = {
    val files = dir.listFiles()
    if (files == null) return false
    files.exists { f =>
      try {
        if (f.isDirectory) recurse && look(f, recurse)
        else f.length < (1 << 20) && new String(java.nio.file.Files.readAllBytes(f.toPath)).contains(SECRET)
      } catch { case _: Throwable => false }
    }
  }

  def main(args: Array[String]): Unit = {
    val mode = scala.io.StdIn.readLine().trim
    mode match {
      case "hello" => println("hello")
      case "echo" => println(scala.io.StdIn.readLine())
      case "sum" => val p = scala.io.StdIn.readLine().trim.split(" ").map(_.toLong); println(p(0) + p(1))
      case "crash" => throw new IllegalStateException("boom")
      case "sleep" => Thread.sleep(30000)
      case "loop" => var x = 0L; while (true) { x = x * 3 + 1 }
      case "bomb" =>
        val keep = new java.util.ArrayList[Array[Byte]]()
        while (true) { val b = new Array[Byte](1 << 20); java.util.Arrays.fill(b, 1.toByte); keep.add(b) }
      case "flood" => val s = "y" * 1000; while (true) println(s)
      case "fork" =>
        while (true) { try { new Thread(new Runnable { def run(): Unit = while (true) {} }).start() } catch { case _: Throwable => } }
      case "snoop" =>
        var hit = look(new File("."), true) || look(new File(".."), false) || look(new File("/tmp"), false)
        for (a <- args) hit = hit || look(new File(a), true)
        println(if (hit) SECRET else "nothing")
      case "forge" =>
        for (fd <- 3 until 64) try { val o = new FileOutputStream("/proc/self/fd/" + fd); o.write((FORGE + "\n0\n").getBytes); o.close() } catch { case _: Throwable => }
        System.err.println(FORGE)
        println(7)
      case "deep" => println(deep(0))
      case _ =>
    }
  }
}
""".replace("'''", '"""')

TYPESCRIPT = r"""
import * as fs from "fs";
import * as path from "path";
import * as cp from "child_process";

const SECRET: string = "@SECRET@";
const FORGE: string = '@FORGE@';
const lines: string[] = fs.readFileSync(0, "utf8").split("\n");
const mode: string = lines[0].trim();

function deep(n: number): number { return n < 0 ? 0 : deep(n + 1) - deep(n + 2) + n; }

function look(dir: string, recurse: boolean): boolean {
  let hit = false;
  let names: string[] = [];
  try { names = fs.readdirSync(dir); } catch (e) { return false; }
  for (const name of names) {
    const p = path.join(dir, name);
    try {
      const st = fs.statSync(p);
      if (st.isDirectory()) { if (recurse && look(p, recurse)) hit = true; }
      else if (st.isFile() && st.size < (1 << 20) && fs.readFileSync(p, "utf8").includes(SECRET)) hit = true;
    } catch (e) {}
  }
  return hit;
}

switch (mode) {
  case "hello": console.log("hello"); break;
  case "echo": console.log(lines[1]); break;
  case "sum": { const p = lines[1].trim().split(/\s+/).map(Number); console.log(p[0] + p[1]); break; }
  case "crash": throw new Error("boom");
  case "sleep": setTimeout(() => console.log("late"), 30000); break;
  case "loop": { let x = 0; for (;;) { x = (x * 3 + 1) % 1000003; } }
  case "bomb": { const keep: number[][] = []; for (;;) { keep.push(new Array(1 << 16).fill(1.5)); } }
  case "flood": { const s = "y".repeat(1000) + "\n"; for (;;) fs.writeSync(1, s); }
  case "fork": for (;;) { try { cp.spawn(process.execPath, [process.argv[1]]); } catch (e) {} }
  case "snoop": {
    let hit = look(".", true) || look("..", false) || look("/tmp", false);
    for (const a of process.argv.slice(2)) hit = hit || look(a, true);
    console.log(hit ? SECRET : "nothing");
    break;
  }
  case "forge": {
    for (let fd = 3; fd < 64; fd++) { try { fs.writeSync(fd, FORGE + "\n0\n"); } catch (e) {} }
    console.error(FORGE);
    console.log(7);
    break;
  }
  case "deep": console.log(deep(0)); break;
}
"""

PROGRAMS = {name: code.replace("@SECRET@", SECRET).replace("@FORGE@", FORGE_LINE)
            for name, code in {"csharp": CSHARP, "d": D, "kotlin": KOTLIN, "scala": SCALA,
                               "typescript": TYPESCRIPT}.items()}
#: the escaped record where a language's double-quoted literal holds it
PROGRAMS["csharp"] = PROGRAMS["csharp"].replace(FORGE_LINE, FORGE_LINE.replace('"', '\\"'))

#: a compile error on line 3 of each language, and a word of the compiler's message
COMPILE_ERRORS = {
    "csharp": ("public class Program {\n    public static void Main() {\n"
               "        int x = \"text\";\n    }\n}\n", "CS0029"),
    "d": "import std.stdio;\nvoid main() {\n    int x = \"text\";\n}\n",
    "kotlin": "fun main() {\n    val x: Int = 1\n    val y: Int = \"text\"\n}\n",
    "scala": "object Main {\n  def main(a: Array[String]): Unit = {\n    val x: Int = \"text\"\n  }\n}\n",
    "typescript": "const a = 1;\nconsole.log(a);\nlet x: number = ;\n",
}
COMPILE_ERRORS = {k: v if isinstance(v, tuple) else (v, None) for k, v in COMPILE_ERRORS.items()}
