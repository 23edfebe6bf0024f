//! One persistent, contained Python interpreter that compiles source after source, for the
//! default Python check of a long-lived process: the interpreter's start-up (tens of
//! milliseconds, more through a version-manager shim) is paid once instead of on every edit.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use editkit_run::{Invocation, PrivateDir};

/// The worker's loop: a header line `NAME_BYTES SOURCE_BYTES LINE_OFFSET`, the name, the
/// source; it compiles the source (never runs it) and answers `STATUS MESSAGE_BYTES` and the
/// message: the first syntax error, its line moved down by the offset (the source may be a
/// run of top-level statements cut from a longer file).
pub(crate) const PYTHON_WORKER: &str = "import sys
r = sys.stdin.buffer
w = sys.stdout.buffer
while True:
    header = r.readline()
    if not header:
        break
    name_bytes, size, offset = (int(x) for x in header.split())
    name = r.read(name_bytes).decode('utf-8', 'replace')
    source = r.read(size)
    message = ''
    try:
        compile(source, name, 'exec', dont_inherit=True)
    except SyntaxError as error:
        line = error.lineno + offset if error.lineno else error.lineno
        message = f'{name}, line {line}, column {error.offset}: {type(error).__name__}: {error.msg}'
    except ValueError as error:
        message = f'{name}: {error}'
    data = message.encode('utf-8', 'replace')
    w.write(b'%d %d\\n' % (1 if message else 0, len(data)) + data)
    w.flush()
";

/// The longest answer read back; a longer one means the worker is not the script above.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// A running worker.
pub(crate) struct Worker {
    child: Child,
    requests: mpsc::Sender<Vec<u8>>,
    answers: mpsc::Receiver<(i32, Vec<u8>)>,
    /// The interpreter, to start a new worker when the PATH or roots lead elsewhere.
    pub(crate) program: PathBuf,
    /// How it was confined.
    pub(crate) confinement: String,
    /// Its private working directory, removed with the worker.
    _dir: PrivateDir,
}

impl Worker {
    /// Starts `program` on the worker script, contained as every external tool is.
    pub(crate) fn start(program: PathBuf, path: std::ffi::OsString, dir: PrivateDir) -> Result<Worker, String> {
        std::fs::create_dir(dir.path().join("cache")).map_err(|e| format!("could not prepare its directory: {e}"))?;
        let invocation = Invocation {
            program: program.clone(),
            args: vec!["-I".into(), "-B".into(), "-c".into(), PYTHON_WORKER.into()],
            stdin: &[],
            dir: dir.path(),
            path,
            timeout: Duration::ZERO,
            max_stdout: 0,
            env: Vec::new(),
        };
        let (spawned, confinement) = editkit_run::spawn(&invocation);
        let mut child = spawned.map_err(|e| format!("could not start: {e}"))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            editkit_run::reap(&mut child);
            return Err("could not start: no pipes".to_owned());
        };
        // Its stderr is not read: close it, so a chatty worker cannot fill a pipe and stall.
        drop(child.stderr.take());
        let (requests, pending) = mpsc::channel::<Vec<u8>>();
        thread::spawn(move || writer(stdin, &pending));
        let (answered, answers) = mpsc::channel();
        thread::spawn(move || reader(stdout, &answered));
        Ok(Worker { child, requests, answers, program, confinement, _dir: dir })
    }

    /// Compiles `source` (named `name` in messages; its first line is line `offset + 1` of
    /// the file): the status (0 clean, 1 an error) and the message. `Err` when the worker
    /// died or took longer than `timeout`; it must then be dropped.
    pub(crate) fn compile(
        &mut self,
        name: &str,
        source: &[u8],
        offset: usize,
        timeout: Duration,
    ) -> Result<(i32, Vec<u8>), String> {
        let mut request = format!("{} {} {offset}\n", name.len(), source.len()).into_bytes();
        request.extend_from_slice(name.as_bytes());
        request.extend_from_slice(source);
        if self.requests.send(request).is_err() {
            return Err("crashed".to_owned());
        }
        match self.answers.recv_timeout(timeout) {
            Ok(answer) => Ok(answer),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(format!("timed out after {} ms", timeout.as_millis())),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err("crashed".to_owned()),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        editkit_run::reap(&mut self.child);
    }
}

fn writer(mut stdin: ChildStdin, pending: &mpsc::Receiver<Vec<u8>>) {
    while let Ok(request) = pending.recv() {
        if stdin.write_all(&request).and_then(|()| stdin.flush()).is_err() {
            return;
        }
    }
}

fn reader(stdout: impl Read, answered: &mpsc::Sender<(i32, Vec<u8>)>) {
    let mut stdout = BufReader::new(stdout);
    let mut header = String::new();
    loop {
        header.clear();
        match (&mut stdout).take(64).read_line(&mut header) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let mut fields = header.split_whitespace().map(str::parse::<usize>);
        let (Some(Ok(status)), Some(Ok(size)), None) = (fields.next(), fields.next(), fields.next()) else { return };
        if size > MAX_ANSWER_BYTES || status > 1 {
            return;
        }
        let mut message = vec![0; size];
        if stdout.read_exact(&mut message).is_err() {
            return;
        }
        if answered.send((i32::from(status == 1), message)).is_err() {
            return;
        }
    }
}
