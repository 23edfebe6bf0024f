//! `editkit demo`: what editkit does, shown on a throwaway copy of a small project.
//!
//! The project lives in `crates/cli/demo/project/` and is embedded in the binary, so the demo
//! needs no files, arguments or configuration. Every step is one tool call through the toolkit,
//! printed the way a person wants to read it; a step that does not behave as described is
//! reported and makes the demo exit with 1.

use std::io;
use std::path::Path;

use editkit::{ApplyPatchResponse, EditFileResponse, ErrorKind, ReadFileResponse, Toolkit};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::{Value, json};

use crate::contract::{self, Answer, Refusal};

use crate::exit::{EXIT_OK, EXIT_REFUSED};
use crate::human::{candidates, edit_summary, patch_summary, symbol_lines};
use crate::render::{self, Style};

/// The demo project: path relative to its root, and content.
const PROJECT: &[(&str, &str)] = &[
    ("README.md", include_str!("../demo/project/README.md")),
    (".env", include_str!("../demo/project/.env")),
    ("shop/__init__.py", include_str!("../demo/project/shop/__init__.py")),
    ("shop/cart.py", include_str!("../demo/project/shop/cart.py")),
    ("shop/pricing.py", include_str!("../demo/project/shop/pricing.py")),
];

const MULTI_FILE_PATCH: &str = r#"*** Begin Patch
*** Update File: shop/pricing.py
@@
 """Prices and discount codes."""
+
+from shop.discounts import DISCOUNTS
@@ def apply_discount(subtotal, code):
-    if code == "SAVE10":
-        return subtotal * 0.9
+    if code in DISCOUNTS:
+        return subtotal * (1 - DISCOUNTS[code])
*** Update File: shop/cart.py
@@ def total(self, code=None):
-        return apply_discount(subtotal, code)
+        return round(apply_discount(subtotal, code), 2)
*** Add File: shop/discounts.py
+"""Discount codes and their rates."""
+
+DISCOUNTS = {"SAVE10": 0.10, "SAVE20": 0.20}
*** End Patch
"#;

const BAD_HUNK_PATCH: &str = r#"*** Begin Patch
*** Update File: shop/cart.py
@@ def total(self, code=None):
-        return round(apply_discount(subtotal, code), 2)
+        return max(0.0, round(apply_discount(subtotal, code), 2))
*** Update File: shop/discounts.py
@@
-DISCOUNTS = {"SAVE10": 0.10, "SAVE50": 0.50}
+DISCOUNTS = {"SAVE10": 0.10, "SAVE50": 0.45}
*** End Patch
"#;

struct Demo {
    toolkit: Toolkit,
    out: Style,
    step: usize,
    surprises: Vec<String>,
}

/// Runs the walkthrough and gives the exit code (1 if any step surprised).
///
/// # Errors
/// The temporary project cannot be created.
pub(crate) fn run() -> io::Result<u8> {
    let dir = tempfile::Builder::new().prefix("editkit-demo-").tempdir()?;
    let root = dir.path().join("shop-project");
    for (path, content) in PROJECT {
        let target = root.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(target, content)?;
    }
    // The throwaway project's state (locks, journals, undo history) goes with it.
    let options =
        editkit::ToolkitOptions { state_home: Some(dir.path().join("state")), ..editkit::ToolkitOptions::default() };
    let toolkit = Toolkit::open(&root, options).map_err(io::Error::other)?;
    let mut demo = Demo { toolkit, out: Style::stdout(), step: 0, surprises: Vec::new() };
    let s = demo.out;
    outln!("{}", s.bold("editkit demo"));
    outln!("A walkthrough on a throwaway copy of a small Python project, in {}.", root.display());
    outln!("Each step is one tool call, as an agent would send it over MCP or `editkit call`.");
    demo.read();
    demo.drifted_edit();
    demo.ambiguous_edit();
    demo.already_applied();
    demo.multi_file_patch();
    demo.bad_hunk_patch();
    demo.stale_write(&root);
    demo.escapes(&root);
    outln!();
    if demo.surprises.is_empty() {
        outln!(
            "{} Every edit landed where it was meant to or changed nothing and said why.",
            s.green(&s.bold("Done."))
        );
        outln!(
            "Next: `editkit mcp --root \"$PWD\"` serves these tools to an agent (name the root by its absolute path in a client's configuration); `editkit --help` lists the rest."
        );
        Ok(EXIT_OK)
    } else {
        outln!("{} {} step(s) did not behave as described:", s.red(&s.bold("Surprise.")), demo.surprises.len());
        for surprise in &demo.surprises {
            outln!("  - {surprise}");
        }
        Ok(EXIT_REFUSED)
    }
}

impl Demo {
    fn heading(&mut self, title: &str, why: &str) {
        self.step += 1;
        outln!();
        outln!("{}", self.out.bold(&self.out.cyan(&format!("{}. {title}", self.step))));
        for line in why.lines() {
            outln!("   {line}");
        }
    }

    /// Prints `→ tool path` and the multi-line arguments named in `shown`, then runs the call
    /// with `args` (each a text).
    fn call(&self, tool: &str, args: &[(&str, &str)], shown: &[&str]) -> Value {
        let s = self.out;
        let arg = |name: &str| args.iter().find(|(key, _)| *key == name).map(|(_, text)| *text);
        outln!("   {} {} {}", s.dim("→"), s.bold(tool), arg("path").unwrap_or(""));
        for name in shown {
            let Some(text) = arg(name) else { continue };
            let label = format!("{name}:");
            for (idx, line) in text.lines().enumerate() {
                let label = if idx == 0 { label.as_str() } else { "" };
                outln!("       {label:<11} {} {line}", s.dim("│"));
            }
        }
        let args: serde_json::Map<String, Value> =
            args.iter().map(|(key, text)| ((*key).to_owned(), json!(text))).collect();
        editkit::tools::call(&self.toolkit, tool, Value::Object(args))
    }

    /// The typed response of a call that should succeed; a refusal is a surprise.
    fn expect_ok<T: DeserializeOwned>(&mut self, what: &str, result: &Value) -> Option<T> {
        let message = match contract::answer::<T>(result) {
            Ok(Answer::Done(typed)) => return Some(typed),
            Ok(Answer::Refused(error)) => error.message.unwrap_or_else(|| "?".to_owned()),
            Err(why) => why,
        };
        outln!("   {} {message}", self.out.red("unexpected refusal:"));
        self.surprises.push(format!("{what}: {message}"));
        None
    }

    /// The refusal of a call that should be refused as `kind`; anything else is a surprise.
    fn expect_refusal(&mut self, what: &str, result: &Value, kind: ErrorKind) -> Option<Refusal> {
        if let Ok(Answer::Refused(error)) = contract::answer::<IgnoredAny>(result)
            && error.error_kind() == Some(kind)
        {
            return Some(*error);
        }
        outln!("   {} expected `{kind}`, got {result}", self.out.red("unexpected:"));
        self.surprises.push(format!("{what}: expected `{kind}`"));
        None
    }

    fn indented(text: &str) {
        for line in text.lines() {
            outln!("     {line}");
        }
    }

    fn sha256(&self, path: &str) -> String {
        let read = editkit::tools::call(&self.toolkit, "read_file", json!({"path": path}));
        match contract::answer::<ReadFileResponse>(&read) {
            Ok(Answer::Done(read)) => read.sha256.to_string(),
            _ => "-".to_owned(),
        }
    }

    fn read(&mut self) {
        self.heading(
            "Read a file: content, hash and symbols",
            "A read returns the text with its SHA-256 and, for code, whether it parses and what it defines.\n\
             The hash arms a staleness guard: a later write is refused if the file changes in between.",
        );
        let result = self.call("read_file", &[("path", "shop/cart.py")], &[]);
        let Some(read) = self.expect_ok::<ReadFileResponse>("read", &result) else { return };
        let s = self.out;
        outln!(
            "   {} {} lines of {}, sha256 {}, syntax {}",
            s.dim("←"),
            read.line_count,
            read.file_type.as_str(),
            render::short_hash(&read.sha256.to_string()),
            if read.is_valid == Some(true) { s.green("ok") } else { s.red("errors") },
        );
        outln!("     symbols:");
        for line in symbol_lines(&read.symbols) {
            outln!("       {line}");
        }
    }

    fn drifted_edit(&mut self) {
        self.heading(
            "An edit whose old text drifted still lands, and says how",
            "The agent remembered the guard in `add` with 2-space indentation; the file uses 8 and 12.\n\
             The matcher climbs its ladder of rungs until exactly one place fits, then re-indents the new text.",
        );
        let args = [
            ("path", "shop/cart.py"),
            ("old_string", "if quantity <= 0:\n  raise ValueError(\"quantity must be positive\")"),
            (
                "new_string",
                "if quantity <= 0 or price < 0:\n  raise ValueError(\"quantity and price must be positive\")",
            ),
        ];
        let result = self.call("edit_file", &args, &["old_string", "new_string"]);
        if let Some(edit) = self.expect_ok::<EditFileResponse>("drifted edit", &result) {
            outln!("   {} {}", self.out.dim("←"), edit_summary(self.out, &edit));
            out!("{}", indent(&render::diff(self.out, &edit.diff)));
        }
    }

    fn ambiguous_edit(&mut self) {
        self.heading(
            "An ambiguous edit is refused, with the candidate lines",
            "`self.changed = True` appears in both `add` and `remove`. Guessing would be a silent bug,\n\
             so nothing is written and the agent learns where to add context.",
        );
        let before = self.sha256("shop/cart.py");
        let args =
            [("path", "shop/cart.py"), ("old_string", "self.changed = True"), ("new_string", "self.version += 1")];
        let result = self.call("edit_file", &args, &["old_string", "new_string"]);
        if let Some(error) = self.expect_refusal("ambiguous edit", &result, ErrorKind::Ambiguous) {
            outln!("   {} {}", self.out.dim("←"), self.out.red(&format!("refused (ambiguous): {}", message(&error))));
            out!("{}", candidates(&self.toolkit, self.out, "shop/cart.py", &error));
            self.unchanged("shop/cart.py", &before);
        }
    }

    fn already_applied(&mut self) {
        self.heading(
            "An edit sent twice is recognised as already applied",
            "Agents retry. This edit's new text is already in the file and its old text is gone,\n\
             so it is reported as done, not as a failure to find the old text.",
        );
        let args = [
            ("path", "shop/cart.py"),
            ("old_string", "raise ValueError(\"quantity must be positive\")"),
            ("new_string", "raise ValueError(\"quantity and price must be positive\")"),
        ];
        let result = self.call("edit_file", &args, &["old_string", "new_string"]);
        if let Some(error) = self.expect_refusal("already applied", &result, ErrorKind::AlreadyApplied) {
            let line = error.line.map_or_else(|| "null".to_owned(), |line| line.to_string());
            outln!(
                "   {} {}",
                self.out.dim("←"),
                self.out.yellow(&format!("already applied (line {line}): {}", message(&error)))
            );
        }
    }

    fn multi_file_patch(&mut self) {
        self.heading(
            "A multi-file patch: every file changes, or none does",
            "One patch updates two files and adds a third. It is planned in full before anything is written,\n\
             then committed with staged files and a journal.",
        );
        outln!("   {} {}", self.out.dim("→"), self.out.bold("apply_patch"));
        Self::indented(MULTI_FILE_PATCH);
        let result = editkit::tools::call(&self.toolkit, "apply_patch", json!({"patch": MULTI_FILE_PATCH}));
        if let Some(patch) = self.expect_ok::<ApplyPatchResponse>("multi-file patch", &result) {
            out!("{}", indent(&format!("{} {}", self.out.dim("←"), patch_summary(self.out, &patch))));
            out!("{}", indent(&render::diff(self.out, &patch.diff)));
        }
    }

    fn bad_hunk_patch(&mut self) {
        self.heading(
            "A patch with one bad hunk leaves every file untouched",
            "The first hunk would apply; the second names a discount code the file does not have.",
        );
        let before_cart = self.sha256("shop/cart.py");
        let before_discounts = self.sha256("shop/discounts.py");
        outln!("   {} {}", self.out.dim("→"), self.out.bold("apply_patch"));
        Self::indented(BAD_HUNK_PATCH);
        let result = editkit::tools::call(&self.toolkit, "apply_patch", json!({"patch": BAD_HUNK_PATCH}));
        if let Some(error) = self.expect_refusal("bad hunk", &result, ErrorKind::NotFound) {
            out!("{}", indent(&format!("{} {}", self.out.dim("←"), render::refusal(self.out, &error))));
            self.unchanged("shop/cart.py", &before_cart);
            self.unchanged("shop/discounts.py", &before_discounts);
        }
    }

    fn stale_write(&mut self, root: &Path) {
        self.heading(
            "A write based on an old read is refused as stale",
            "The agent read pricing.py; then a person saved it in their editor. The agent's write, built on\n\
             what it read, would erase that change, so it is refused until the agent reads again.",
        );
        let read = editkit::tools::call(&self.toolkit, "read_file", json!({"path": "shop/pricing.py"}));
        let (content, sha256) = match contract::answer::<ReadFileResponse>(&read) {
            Ok(Answer::Done(read)) => (read.content, read.sha256.to_string()),
            _ => (String::new(), String::new()),
        };
        outln!("   {} read_file shop/pricing.py  (sha256 {})", self.out.dim("→"), render::short_hash(&sha256));
        let edited_by_hand = format!("{content}\n\n# Reviewed by a person.\n");
        if let Err(err) = std::fs::write(root.join("shop/pricing.py"), edited_by_hand) {
            self.surprises.push(format!("stale write: cannot simulate the person's save: {err}"));
            return;
        }
        outln!("   {} (a person saves shop/pricing.py in an editor)", self.out.dim("…"));
        let content = content.replace("0.9", "0.85");
        let result = self.call("write_file", &[("path", "shop/pricing.py"), ("content", &content)], &[]);
        if let Some(error) = self.expect_refusal("stale write", &result, ErrorKind::Stale) {
            out!("{}", indent(&format!("{} {}", self.out.dim("←"), render::refusal(self.out, &error))));
        }
    }

    fn escapes(&mut self, root: &Path) {
        self.heading(
            "Escapes are refused by capabilities, not string checks",
            "Every path resolves inside the root through an open directory handle: `..` cannot climb out,\n\
             a link to the outside is refused, secrets are blocked, and an absolute path must lie under the root.",
        );
        // A link inside the project that leads outside it, as a malicious repository could ship.
        #[cfg(unix)]
        let linked = std::os::unix::fs::symlink("/etc", root.join("docs")).is_ok();
        #[cfg(not(unix))]
        let linked = false;
        let mut attempts = vec![
            ("../../../etc/passwd", ErrorKind::OutsideWorkspace),
            (".env", ErrorKind::Blocked),
            ("/etc/passwd", ErrorKind::OutsideWorkspace),
        ];
        if linked {
            attempts.insert(1, ("docs/passwd", ErrorKind::OutsideWorkspace));
        }
        for (path, kind) in attempts {
            let result = editkit::tools::call(&self.toolkit, "read_file", json!({"path": path}));
            if let Some(error) = self.expect_refusal(&format!("read {path}"), &result, kind) {
                outln!(
                    "   {} read_file {path:<22} {} {}",
                    self.out.dim("→"),
                    self.out.red(&format!("refused ({kind}):")),
                    message(&error).split(';').next().unwrap_or_default()
                );
            }
        }
    }

    /// Checks that a file still has its hash, and says so.
    fn unchanged(&mut self, path: &str, before: &str) {
        let after = self.sha256(path);
        if after == before {
            outln!("     {} {path} unchanged (sha256 {})", self.out.green("✓"), render::short_hash(&after));
        } else {
            outln!("     {} {path} changed", self.out.red("✗"));
            self.surprises.push(format!("{path} changed by a refused call"));
        }
    }
}

fn message(error: &Refusal) -> String {
    error.message.clone().unwrap_or_default()
}

fn indent(text: &str) -> String {
    text.lines().map(|line| format!("     {line}\n")).collect()
}
