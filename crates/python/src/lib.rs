//! The native half of the `editkit` Python package: the [`editkit`] toolkit in-process.
//!
//! Python code imports `editkit` (the pure-Python package under `python/editkit/`), which
//! wraps this module, `editkit._editkit`: `Toolkit` with one method per tool and typed
//! results, an exception per error kind, and the adapters under `editkit.compat`. This module
//! only opens a toolkit, runs tool calls on the JSON contract and describes the tools; every
//! decision stays in the toolkit's crates.
//!
//! Every call releases the GIL while the tool runs, so Python threads edit different files in
//! parallel; the toolkit's per-file locks serialise what must be serialised.
//!
//! A runnable example (Python; `tests/test_core.py` runs this very block):
//!
//! ```python
//! import pathlib, tempfile
//! import editkit
//!
//! root = pathlib.Path(tempfile.mkdtemp())
//! (root / "app.py").write_text("def main():\n\treturn 1\n")
//! tk = editkit.Toolkit(root)
//! read = tk.read_file("app.py")
//! assert read.line_count == 2
//! # The old text drifted (spaces for the file's tab): it still lands, and says how.
//! edit = tk.edit_file("app.py", "    return 1", "    return 2", expected_hash=read.sha256)
//! assert edit.rung == "line_trimmed"
//! assert (root / "app.py").read_text() == "def main():\n\treturn 2\n"
//! try:
//!     tk.edit_file("app.py", "return 3", "return 4")
//! except editkit.NotFound as refused:
//!     assert refused.kind == "not_found"
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use editkit::analyze::{DiagnosticsMode, ExternalTool};
use editkit::vfs::AbsolutePaths;
use editkit::{Durability, Toolkit, ToolkitOptions, tools};
use pyo3::exceptions::{PyException, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::{Value, json};

pyo3::create_exception!(
    _editkit,
    OpenError,
    PyException,
    "A toolkit could not be opened; `args[0]` is the contract's error object (kind, message, details)."
);

/// The application's formatters: lowercase extension → (name, argv) in the order tried.
type Formatters = BTreeMap<String, Vec<(String, Vec<String>)>>;

/// Declares the options a Python caller may open a toolkit with, once: each with its Rust
/// type and its default in the keyword signature. From the list come [`OpenArgs`], the
/// `_Toolkit` constructor's signature and its parameters, so the three cannot disagree;
/// `Toolkit.__init__` in Python and the stubs are checked against the signature by
/// `tests/test_stubs.py`.
macro_rules! open_options {
    ($callback:ident $($extra:tt)*) => {
        $callback! {
            [$($extra)*]
            read_only: bool = false,
            blocked: Vec<String> = Vec::new(),
            hard_links: Vec<String> = Vec::new(),
            diagnostics: String = "auto".to_owned(),
            format: bool = false,
            formatters: Option<Formatters> = None,
            durability: String = "full".to_owned(),
            absolute_paths: String = "remap".to_owned(),
            state_dir: Option<PathBuf> = None,
            max_read_bytes: Option<u64> = None,
            read_page_bytes: Option<usize> = None,
            full_diffs: bool = false,
            detect_encodings: bool = true,
            tools: Option<String> = None,
            history_depth: Option<usize> = None,
            history_bytes: Option<u64> = None,
            max_sessions: Option<usize> = None,
            max_session_bytes: Option<u64> = None,
            max_patch_work: Option<u64> = None,
            kept_read_bytes: Option<u64> = None,
            server_diagnostics: bool = false,
        }
    };
}

macro_rules! declare_open_args {
    ([] $($name:ident: $type:ty = $default:expr,)*) => {
        /// How a toolkit is opened: every option of [`ToolkitOptions`] a Python caller may set.
        #[derive(Debug)]
        struct OpenArgs {
            roots: Vec<PathBuf>,
            $($name: $type,)*
        }
    };
}

open_options!(declare_open_args);

/// What an option's Rust type makes of it on the Python side: whether it is a bound, a whole
/// number a caller may leave out, which `Toolkit.__init__` checks (a `bool` or a negative
/// number is refused as `InvalidArgs` naming it) before this module sees it. A type added to
/// [`open_options`] does not compile until it says.
trait OptionType {
    /// Whether the option is a bound.
    const BOUND: bool = false;
}

impl OptionType for bool {}
impl OptionType for String {}
impl OptionType for Vec<String> {}
impl OptionType for Option<String> {}
impl OptionType for Option<PathBuf> {}
impl OptionType for Option<Formatters> {}
impl OptionType for Option<u64> {
    const BOUND: bool = true;
}
impl OptionType for Option<usize> {
    const BOUND: bool = true;
}

macro_rules! declare_bound_options {
    ([] $($name:ident: $type:ty = $default:expr,)*) => {
        /// The options that are bounds, in [`open_options`]' order: `BOUND_OPTIONS`, the names
        /// `Toolkit.__init__` checks.
        fn bound_options() -> Vec<&'static str> {
            [$((stringify!($name), <$type as OptionType>::BOUND)),*]
                .into_iter()
                .filter_map(|(name, bound)| bound.then_some(name))
                .collect()
        }
    };
}

open_options!(declare_bound_options);

/// An option given a word it does not take, in the contract's shape.
fn invalid(field: &str, message: String) -> Value {
    json!({"kind": "invalid_args", "message": message, "field": field})
}

/// The word `given` of option `field`, parsed by its type (whose words are `names`).
fn choose<T: std::str::FromStr>(field: &str, given: &str, names: &[&str]) -> Result<T, Value> {
    given.parse().map_err(|_| {
        let words: Vec<String> = names.iter().map(|word| format!("{word:?}")).collect();
        invalid(field, format!("{field} must be one of {}, not {given:?}", words.join(", ")))
    })
}

impl OpenArgs {
    fn options(&self) -> Result<ToolkitOptions, Value> {
        let mut options = ToolkitOptions {
            read_only: self.read_only,
            full_diffs: self.full_diffs,
            detect_encodings: self.detect_encodings,
            ..Default::default()
        };
        options.policy.blocked.extend(self.blocked.iter().cloned());
        options.policy.hard_links_under.extend(self.hard_links.iter().cloned());
        options.policy.absolute =
            choose::<AbsolutePaths>("absolute_paths", &self.absolute_paths, AbsolutePaths::NAMES)?;
        options.diagnostics.mode = choose::<DiagnosticsMode>("diagnostics", &self.diagnostics, DiagnosticsMode::NAMES)?;
        options.formatting.enabled = self.format;
        for (extension, tools) in self.formatters.iter().flatten() {
            let key = extension.trim_start_matches('.').to_ascii_lowercase();
            if key.is_empty() {
                return Err(invalid("formatters", format!("formatters: {extension:?} is not a file extension")));
            }
            let mut chosen = Vec::with_capacity(tools.len());
            for (name, argv) in tools {
                if argv.first().is_none_or(String::is_empty) {
                    return Err(invalid(
                        "formatters",
                        format!("formatters: the {name:?} formatter for {extension:?} has no program (an empty argv)"),
                    ));
                }
                chosen.push(ExternalTool { name: name.clone(), argv: argv.clone() });
            }
            options.formatting.formatters.insert(key, chosen);
        }
        options.durability = choose::<Durability>("durability", &self.durability, Durability::NAMES)?;
        options.state_home =
            self.state_dir.as_ref().map(|dir| std::path::absolute(dir).unwrap_or_else(|_| dir.clone()));
        if let Some(tools) = &self.tools {
            options.tools = tools.parse().map_err(|err: editkit::Error| err.to_json())?;
        }
        let positive = |field: &str, value: u64| {
            if value == 0 { Err(invalid(field, format!("{field} must be at least 1"))) } else { Ok(value) }
        };
        if let Some(bytes) = self.max_read_bytes {
            options.max_read_bytes = positive("max_read_bytes", bytes)?;
        }
        if let Some(bytes) = self.read_page_bytes {
            options.read_page_bytes = Some(positive("read_page_bytes", bytes as u64)? as usize);
        }
        if let Some(depth) = self.history_depth {
            options.history_depth = depth;
        }
        if let Some(bytes) = self.history_bytes {
            options.history_bytes = bytes;
        }
        if let Some(sessions) = self.max_sessions {
            options.max_sessions = positive("max_sessions", sessions as u64)? as usize;
        }
        if let Some(bytes) = self.max_session_bytes {
            options.max_session_bytes = positive("max_session_bytes", bytes)?;
        }
        if let Some(work) = self.max_patch_work {
            options.max_patch_work = positive("max_patch_work", work)?;
        }
        if let Some(bytes) = self.kept_read_bytes {
            // 0 keeps no version: every edit of a file changed since its read is `stale`.
            options.kept_read_bytes = bytes;
        }
        options.language_servers.after_writes = self.server_diagnostics;
        Ok(options)
    }

    fn open(&self) -> Result<Toolkit, Value> {
        let options = self.options()?;
        Toolkit::open_roots(&self.roots, options).map_err(|err| err.to_json())
    }
}

/// One open toolkit. Frozen and shared: calls from several Python threads run at once.
#[pyclass(frozen, name = "_Toolkit", module = "editkit._editkit")]
struct PyToolkit {
    toolkit: Arc<Toolkit>,
}

/// The `_Toolkit` methods: the constructor, whose keyword signature and parameters come from
/// [`open_options`], and the methods given.
macro_rules! declare_pymethods {
    ([{ $($methods:tt)* }] $($name:ident: $type:ty = $default:expr,)*) => {
        #[pymethods]
        impl PyToolkit {
            /// Opens a toolkit on `roots` (the first is primary). Raises `OpenError` with the
            /// contract's error object when an option or a root is refused.
            #[new]
            #[pyo3(signature = (roots, *, $($name = $default),*))]
            #[expect(clippy::too_many_arguments, reason = "one keyword argument per Python option")]
            fn new(py: Python<'_>, roots: Vec<PathBuf>, $($name: $type),*) -> PyResult<Self> {
                let args = OpenArgs { roots, $($name),* };
                match py.detach(|| args.open()) {
                    Ok(toolkit) => Ok(PyToolkit { toolkit: Arc::new(toolkit) }),
                    Err(error) => Err(OpenError::new_err(pythonize::pythonize(py, &error)?.unbind())),
                }
            }

            $($methods)*
        }
    };
}

open_options!(declare_pymethods {
    /// Runs tool `name` on `args` (a dict of JSON values) and returns the contract object:
    /// `{"ok": True, ...}` or `{"ok": False, "error": {...}}`. The GIL is released while the
    /// tool runs. Raises `TypeError` only for arguments that are not JSON values.
    fn call<'py>(&self, py: Python<'py>, name: &str, args: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        let args: Value = match args {
            None => Value::Object(serde_json::Map::new()),
            Some(args) if args.is_none() => Value::Object(serde_json::Map::new()),
            Some(args) => pythonize::depythonize(args).map_err(|err| {
                PyTypeError::new_err(format!(
                    "the arguments of `{name}` must be JSON values (dict, list, str, int, float, bool, None): {err}"
                ))
            })?,
        };
        let toolkit = Arc::clone(&self.toolkit);
        let name = name.to_owned();
        let result = py.detach(move || tools::call(&toolkit, &name, args));
        Ok(pythonize::pythonize(py, &result)?)
    }

    /// The workspace roots, as absolute paths (the first is primary).
    #[getter]
    fn roots(&self) -> Vec<PathBuf> {
        self.toolkit.workspaces().iter().map(|w| w.root_path().to_path_buf()).collect()
    }

    /// What each workspace's shipped `.editkit/` folder note says (ignored state), if any.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.toolkit.workspaces().iter().filter_map(|w| w.shipped_state()).collect()
    }

    /// The tool names this toolkit runs (its tool selection).
    fn tool_names(&self) -> Vec<&'static str> {
        tools::names().into_iter().filter(|name| self.toolkit.options().tools.contains(name)).collect()
    }
});

/// Every tool's description: a list of dicts with `name`, `description`, `input_schema`,
/// `output_schema`, `read_only`, `destructive` and `idempotent`.
#[pyfunction]
fn specs(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let specs: Vec<Value> = tools::specs()
        .into_iter()
        .map(|spec| {
            json!({
                "name": spec.name,
                "description": spec.description,
                "input_schema": spec.input_schema,
                "output_schema": spec.output_schema,
                "read_only": spec.read_only,
                "destructive": spec.destructive,
                "idempotent": spec.idempotent,
            })
        })
        .collect();
    Ok(pythonize::pythonize(py, &specs)?)
}

/// Descriptors the process's table holds from the import on (a patch of some 1,300 files).
const DESCRIPTOR_TABLE: u64 = 4096;

/// The module `editkit._editkit`.
#[pymodule]
fn _editkit(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    // At import, before the toolkit starts a thread: a patch's commit holds three descriptors
    // a file, and a table grown while threads run waits for them (see the function's docs).
    // An interpreter already running threads waits once, here, without holding the GIL.
    let _ = py.detach(|| editkit::vfs::grow_descriptor_table(DESCRIPTOR_TABLE));
    module.add_class::<PyToolkit>()?;
    module.add_function(wrap_pyfunction!(specs, module)?)?;
    module.add("OpenError", py.get_type::<OpenError>())?;
    module.add("ERROR_KINDS", editkit::ERROR_KINDS.to_vec())?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    let limits = PyDict::new(py);
    limits.set_item("max_read_bytes", editkit::vfs::DEFAULT_MAX_READ_BYTES)?;
    limits.set_item("max_read_files", editkit::MAX_READ_FILES)?;
    limits.set_item("max_sessions", editkit::DEFAULT_MAX_SESSIONS)?;
    limits.set_item("max_session_bytes", editkit::DEFAULT_MAX_SESSION_BYTES)?;
    limits.set_item("max_patch_work", editkit::patch::DEFAULT_MAX_WORK)?;
    limits.set_item("kept_read_bytes", editkit::DEFAULT_KEPT_READ_BYTES)?;
    module.add("DEFAULT_LIMITS", limits)?;
    module.add("BOUND_OPTIONS", bound_options())?;
    // The words of the options that take one, from their types (the stubs' `Literal`s).
    let words = PyDict::new(py);
    words.set_item("diagnostics", DiagnosticsMode::NAMES.to_vec())?;
    words.set_item("durability", Durability::NAMES.to_vec())?;
    words.set_item("absolute_paths", AbsolutePaths::NAMES.to_vec())?;
    module.add("OPTION_WORDS", words)?;
    Ok(())
}
