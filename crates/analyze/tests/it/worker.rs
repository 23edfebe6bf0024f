//! The persistent Python compile worker of `diagnose_cached`: it reports what the one-shot
//! interpreter check reports, compiles only the statements an edit touched when the file was
//! clean, and is replaced when it dies.

use std::collections::BTreeMap;
use std::path::Path;

use editkit_analyze::{CheckCache, Diagnostics, DiagnosticsMode, DiagnosticsOptions, diagnose, diagnose_cached};

fn python_only() -> DiagnosticsOptions {
    let mut options = DiagnosticsOptions { mode: DiagnosticsMode::On, ..Default::default() };
    let python: Vec<_> = options.checkers["py"].iter().filter(|tool| tool.name == "python").cloned().collect();
    assert_eq!(python.len(), 1, "the default Python checkers include the interpreter check");
    options.checkers = BTreeMap::from([("py".to_owned(), python)]);
    options
}

fn verdict(found: &Diagnostics) -> (bool, String) {
    let checker = found.checker.as_ref().unwrap_or_else(|| panic!("the python check did not run: {found:?}"));
    assert_eq!(checker.tool, "python");
    (checker.ok, checker.output.clone())
}

const ROOT: &str = "/nonexistent-editkit-root";

#[test]
fn the_worker_reports_what_the_one_shot_check_reports() {
    let options = python_only();
    let cache = CheckCache::default();
    let sources = [
        "def f():\n    return 1\n",
        "def f(:\n    pass\n",
        "x = 1\nreturn x\n",
        "class A:\n    def m(self):\n        nonlocal q\n",
        "print('a'\n",
        "x = '\u{e9}'\nbreak\n",
        "",
        "\u{feff}x = 1\n",
    ];
    for source in sources {
        let one_shot = verdict(&diagnose(&[Path::new(ROOT)], "m.py", source, &options));
        let worker = verdict(&diagnose_cached(&[Path::new(ROOT)], "m.py", source, &options, &cache));
        assert_eq!(worker, one_shot, "for {source:?}");
    }
}

/// 400 functions, then an edit that puts a `return` outside any function (a compile error
/// tree-sitter accepts) into statement 300: the worker compiles only that statement yet names
/// the file's line; an edit elsewhere in a broken file still reports the old error.
#[test]
fn after_a_clean_check_only_the_touched_statements_are_compiled_with_the_file_s_lines() {
    let options = python_only();
    let cache = CheckCache::default();
    let body: String = (0..400).map(|n| format!("def f{n}(x):\n    y = x + {n}\n    return y\n\n\n")).collect();
    let root = [Path::new(ROOT)];
    assert!(verdict(&diagnose_cached(&root, "big.py", &body, &options, &cache)).0);
    let broken = body.replace("def f300(x):\n    y = x + 300\n", "y = 300\nreturn y\ndef f300(x):\n    y = x + 300\n");
    let line = broken.lines().position(|line| line == "return y").unwrap() + 1;
    let (ok, output) = verdict(&diagnose_cached(&root, "big.py", &broken, &options, &cache));
    assert!(!ok);
    assert!(output.contains(&format!("big.py, line {line}, ")), "{output}");
    assert_eq!(verdict(&diagnose(&root, "big.py", &broken, &options)), (ok, output.clone()), "as the one-shot check");
    // The file is broken now: an edit far from the error still reports it (the whole file is compiled).
    let elsewhere = broken.replace("y = x + 5\n", "y = x + 55\n");
    assert_eq!(verdict(&diagnose_cached(&root, "big.py", &elsewhere, &options, &cache)), (false, output));
    // Fixed again: clean.
    let fixed = elsewhere.replace("y = 300\nreturn y\n", "");
    assert!(verdict(&diagnose_cached(&root, "big.py", &fixed, &options, &cache)).0);
}

/// An edit that adds a `from __future__` import compiles the whole file: a future import may
/// only come first.
#[test]
fn a_misplaced_future_import_is_found_even_after_a_clean_check() {
    let options = python_only();
    let cache = CheckCache::default();
    let root = [Path::new(ROOT)];
    let clean = "from __future__ import annotations\nx = 1\n\n\ndef f():\n    return 2\n";
    assert!(verdict(&diagnose_cached(&root, "m.py", clean, &options, &cache)).0);
    let misplaced = format!("{clean}\nfrom __future__ import division\n");
    let (ok, output) = verdict(&diagnose_cached(&root, "m.py", &misplaced, &options, &cache));
    assert!(!ok && output.contains("from __future__ imports must occur at the beginning"), "{output}");
}

/// `barry_as_FLUFL` (the one future feature meant to change the grammar) is not honoured by
/// `compile()`: `<>` stays an error, so compiling a statement without the file's imports
/// judges it as the whole file does.
#[test]
fn the_future_feature_that_changes_the_grammar_does_not_change_what_compile_accepts() {
    let options = python_only();
    let cache = CheckCache::default();
    let root = [Path::new(ROOT)];
    let clean = "from __future__ import barry_as_FLUFL\nx = 1\n\n\ndef f():\n    return 2\n";
    assert!(verdict(&diagnose_cached(&root, "m.py", clean, &options, &cache)).0);
    let edited = clean.replace("return 2", "return 1 <> 2");
    let whole = verdict(&diagnose(&root, "m.py", &edited, &options));
    assert!(!whole.0, "`<>` is refused by compile() even under barry_as_FLUFL");
    assert_eq!(verdict(&diagnose_cached(&root, "m.py", &edited, &options, &cache)), whole);
}

/// `diagnose_change` compiles only the statements a change touched, and in `auto` mode starts
/// the interpreter only where the compiler can add to the built-in check: a plain assignment
/// starts nothing; a `return` at the top level (which tree-sitter accepts) is caught, at its
/// line in the file.
#[test]
fn a_change_starts_the_compiler_only_where_it_can_add_something() {
    let mut options = python_only();
    options.mode = DiagnosticsMode::Auto;
    let old: String = (0..200).map(|n| format!("def f{n}(a):\n    return a + {n}\n\n")).collect();
    let cache = CheckCache::default();
    let plain = old.replacen("    return a + 100\n", "    return a + 100\nx = 1\n", 1);
    let found = editkit_analyze::diagnose_change(&[Path::new(ROOT)], "m.py", Some(&old), &plain, &options, &cache);
    assert_eq!(found, Diagnostics::default(), "a clean plain assignment starts no checker");
    let returned = old.replacen("    return a + 100\n", "    return a + 100\nreturn 1\n", 1);
    let found = editkit_analyze::diagnose_change(&[Path::new(ROOT)], "m.py", Some(&old), &returned, &options, &cache);
    assert!(found.syntax.is_none(), "tree-sitter accepts a top-level return: {found:?}");
    let (ok, output) = verdict(&found);
    assert!(!ok && output.contains("line 303") && output.contains("'return' outside function"), "{output}");
    // The built-in check's errors stand alone: no interpreter for them.
    let broken = old.replacen("def f100(a):", "def f100(a:", 1);
    let found = editkit_analyze::diagnose_change(&[Path::new(ROOT)], "m.py", Some(&old), &broken, &options, &cache);
    assert!(
        found.checker.is_none() && found.syntax.as_ref().is_some_and(|syntax| syntax.errors[0].line == 301),
        "{found:?}"
    );
}

/// A check that could not be made says so, with the size; it never looks clean.
#[test]
fn a_check_past_the_parse_limits_is_reported_skipped() {
    let options = DiagnosticsOptions { mode: DiagnosticsMode::Auto, checkers: BTreeMap::new(), ..Default::default() };
    let cache = CheckCache::default();
    // One statement of 17 MiB: no boundary to cut at.
    let old = format!("x = [\n{}]\n", "1,\n".repeat(6 << 20));
    let new = old.replacen("1,\n", "2,\n", 1);
    let found = editkit_analyze::diagnose_change(&[Path::new(ROOT)], "big.py", Some(&old), &new, &options, &cache);
    let skipped = found.check_skipped.as_ref().unwrap_or_else(|| panic!("not reported skipped: {found:?}"));
    assert!(skipped.size_bytes > 16 << 20 && skipped.reason.contains("parse limit"), "{skipped:?}");
    assert!(found.syntax.is_none());
}

/// The compile check starts only where it can add something, and wherever CPython refuses
/// what tree-sitter takes, it does start: each sample is judged by CPython itself.
#[test]
fn the_compiler_runs_exactly_where_cpython_may_refuse_what_the_grammar_takes() {
    let mut options = python_only();
    options.mode = DiagnosticsMode::Auto;
    // (source, whether the compile check must run)
    let samples: &[(&str, bool)] = &[
        ("x = 1\n", false),
        ("def f():\n    return 1\n", false),
        ("return 1\n", true),
        ("class A:\n    return 1\n", true),
        ("def f():\n    class A:\n        return 1\n", true),
        ("for x in y:\n    break\n", false),
        ("break\n", true),
        ("for x in y:\n    pass\nelse:\n    continue\n", true),
        ("while x:\n    def f():\n        break\n", true),
        ("def f():\n    yield 1\n", false),
        ("yield 1\n", true),
        ("def f():\n    return [(yield x) for x in y]\n", true),
        ("async def f():\n    await x\n", false),
        ("def f():\n    await x\n", true),
        ("def f(a, b=1, *c, d, e=2, **g):\n    pass\n", false),
        ("def f(a, a):\n    pass\n", true),
        ("def f(a=1, b):\n    pass\n", true),
        ("lambda a, a: 1\n", true),
        ("f(a, *b, c=1, **d)\n", false),
        ("f(a=1, b)\n", true),
        ("f(a=1, a=2)\n", true),
        ("f(**d, *b)\n", true),
        ("x, *y = z\n", false),
        ("self.x[1] += 2\n", false),
        ("print 'x'\n", true),
        ("nonlocal q\n", true),
        ("s = 'a\\nb\\t\\x41\\u00e9'\n", false),
        ("s = '\\x4'\n", true),
        ("s = '\\N{EM DASH}'\n", true),
        ("s = b'\u{e9}'\n", true),
        ("s = f'{x}'\n", false),
        ("s = f'{x!r:>10} and {y.z[0]:.2f} {a + b=} {{}} {f(a=1)[i:j]}'\n", false),
        ("s = f\"{d['k']} {x != y}\"\n", false),
        ("s = f'{x!z}'\n", true),
        ("s = f'{lambda: 1}'\n", true),
        ("s = f'{x:{w}}'\n", true),
        ("s = f\"{d[\"k\"]}\"\n", true),
        ("s = f'{x # note\n}'\n", true),
        ("s = t'{x}'\n", true),
        ("del a, b.c, d[1], (e, [f])\n", false),
        ("del f()\n", true),
        ("del (a + b)\n", true),
        ("if (n := len(a)) > 10:\n    pass\n", false),
        ("while chunk := read():\n    pass\n", false),
        ("print(y := 2)\n", false),
        ("x := 1\n", true),
        ("y = x := 1\n", true),
        ("[y := 1 for x in z]\n", true),
        ("def f(a,  # the first\n      b=1):\n    pass\n", false),
        ("def f():\n    global g\n    g = 1\n", false),
        ("class C:\n    global g\n    g = 1\n", false),
        ("def f(g):\n    global g\n", true),
        ("def f():\n    print(g)\n    global g\n", true),
        ("global g\n", true),
        ("def f():\n    x = 1\n    def g():\n        nonlocal x\n        x = 2\n", false),
        ("def f(x):\n    def g():\n        nonlocal x\n        x += 1\n", false),
        ("def f():\n    def g():\n        nonlocal x\n", true),
        ("def f():\n    global x\n    x = 1\n    def g():\n        nonlocal x\n", true),
        ("def f():\n    x = 1\n    def g(x):\n        nonlocal x\n", true),
        ("s = r'\\x4'\n", false),
    ];
    let mut ran_where_refused = 0;
    for (source, must_run) in samples {
        let cache = CheckCache::default();
        let found = editkit_analyze::diagnose_change(&[Path::new(ROOT)], "m.py", None, source, &options, &cache);
        let ran = found.confinement.is_some();
        assert_eq!(ran, *must_run, "{source:?}: {found:?}");
        let refused = crate::cpython_refuses(source);
        if refused && found.syntax.is_none() {
            assert!(ran, "{source:?}: CPython refuses it, tree-sitter takes it, and the compiler did not run");
            assert!(found.checker.as_ref().is_some_and(|checker| !checker.ok), "{source:?}: {found:?}");
            ran_where_refused += 1;
        }
        if !must_run {
            assert!(!refused, "{source:?}: CPython refuses it, but the gate said it could not");
        }
    }
    assert!(ran_where_refused >= 15, "only {ran_where_refused} samples refused by CPython only");
}

/// A statement checked on the statements of its block is parsed after lines that stand for
/// the blocks around it: an `await` in an async method and a `break` in a loop start no
/// compiler, while the same in a plain method or outside the loop is caught at its line.
#[test]
fn a_narrowed_check_knows_the_kind_of_the_blocks_around_it() {
    let mut options = python_only();
    options.mode = DiagnosticsMode::Auto;
    let methods: String = (0..40).map(|n| format!("    def m{n}(self, a):\n        return a + {n}\n\n")).collect();
    let old = format!(
        "class C(Base, metaclass=Meta):\n{methods}    async def run(self, items: list[int]) -> None:\n        for item in items:\n            x = item\n        y = 1\n\n    def plain(self):\n        z = 2\n"
    );
    let cache = CheckCache::default();
    let line = |text: &str, wanted: &str| text.lines().position(|line| line == wanted).unwrap() + 1;
    let check =
        |new: &str| editkit_analyze::diagnose_change(&[Path::new(ROOT)], "m.py", Some(&old), new, &options, &cache);
    for (before, inserted) in
        [("            x = item\n", "            break\n"), ("        y = 1\n", "        await f()\n")]
    {
        let new = old.replace(before, &format!("{inserted}{before}"));
        assert_eq!(check(&new), Diagnostics::default(), "{inserted:?} stands where it may");
    }
    for (before, inserted, refused) in [
        ("        y = 1\n", "        break\n", "'break' outside loop"),
        ("        z = 2\n", "        await f()\n", "'await' outside async function"),
    ] {
        let new = old.replace(before, &format!("{inserted}{before}"));
        let (ok, output) = verdict(&check(&new));
        let at = format!("line {}", line(&new, inserted.trim_end_matches('\n')));
        assert!(!ok && output.contains(refused) && output.contains(&at), "{inserted:?}: {output}");
    }
}
