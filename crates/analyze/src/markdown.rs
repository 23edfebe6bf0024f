//! Markdown outline and section ranges, with pulldown-cmark.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde::Serialize;

use crate::Error;
use crate::parse::{LineIndex, MAX_PARSE_BYTES};

/// The structure of a Markdown document. Lines are 1-based.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Outline {
    /// ATX (`#`) and setext headers, in order.
    pub headers: Vec<Header>,
    /// Fenced and indented code blocks, in order.
    pub code_blocks: Vec<CodeBlock>,
    /// Links and images, inline and reference-style, in order.
    pub links: Vec<Link>,
}

/// A header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Header {
    /// 1 for `#`, up to 6.
    pub level: u8,
    /// The text, without markup.
    pub text: String,
    /// The line where the header starts.
    pub line: usize,
}

/// A code block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeBlock {
    /// The first word of a fenced block's info string (`rust` in ```` ```rust ````), if any.
    pub language: Option<String>,
    /// The code, without fences or indentation.
    pub code: String,
    /// The line where the block starts (its opening fence for a fenced block).
    pub line: usize,
    /// `true` for a fenced block, `false` for an indented one.
    pub fenced: bool,
}

/// A link or an image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    /// The link text, or an image's alt text.
    pub text: String,
    /// The destination, resolved for reference-style links.
    pub url: String,
    /// The line where the link starts.
    pub line: usize,
    /// `true` for an image.
    pub image: bool,
}

fn check_size(source: &str) -> Result<(), Error> {
    if source.len() > MAX_PARSE_BYTES {
        return Err(Error::TooLarge { len: source.len(), limit: MAX_PARSE_BYTES });
    }
    Ok(())
}

/// The headers, code blocks and links of a Markdown document.
///
/// ```
/// let outline = editkit_analyze::outline("# Title\n\nSee [docs][d].\n\n```sh\nls\n```\n\n[d]: https://x.test\n")?;
/// assert_eq!(outline.headers[0].text, "Title");
/// assert_eq!(outline.code_blocks[0].language.as_deref(), Some("sh"));
/// assert_eq!((outline.links[0].url.as_str(), outline.links[0].line), ("https://x.test", 3));
/// # Ok::<(), editkit_analyze::Error>(())
/// ```
///
/// # Errors
/// [`Error::TooLarge`] above the parse size limit.
pub fn outline(source: &str) -> Result<Outline, Error> {
    check_size(source)?;
    let index = LineIndex::new(source);
    let mut outline = Outline::default();
    // Text being collected for the open header, code block and links (innermost last).
    let mut header: Option<Header> = None;
    let mut code: Option<CodeBlock> = None;
    let mut links: Vec<Link> = Vec::new();
    for (event, range) in Parser::new_ext(source, Options::all()).into_offset_iter() {
        let line = index.line(range.start);
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                header = Some(Header { level: level as u8, text: String::new(), line });
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(mut done) = header.take() {
                    done.text = done.text.trim().to_owned();
                    outline.headers.push(done);
                }
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                let (language, fenced) = match kind {
                    CodeBlockKind::Fenced(info) => {
                        let word = info.split_whitespace().next().unwrap_or("");
                        let word = word.split(',').next().unwrap_or("");
                        ((!word.is_empty()).then(|| word.to_owned()), true)
                    }
                    CodeBlockKind::Indented => (None, false),
                };
                code = Some(CodeBlock { language, code: String::new(), line, fenced });
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(done) = code.take() {
                    outline.code_blocks.push(done);
                }
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                links.push(Link { text: String::new(), url: dest_url.into_string(), line, image: false });
            }
            Event::Start(Tag::Image { dest_url, .. }) => {
                links.push(Link { text: String::new(), url: dest_url.into_string(), line, image: true });
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                if let Some(mut done) = links.pop() {
                    done.text = done.text.trim().to_owned();
                    outline.links.push(done);
                }
            }
            Event::Text(text) | Event::Code(text) | Event::InlineMath(text) | Event::DisplayMath(text) => {
                if let Some(block) = code.as_mut() {
                    block.code.push_str(&text);
                }
                if let Some(open) = header.as_mut() {
                    open.text.push_str(&text);
                }
                for open in &mut links {
                    open.text.push_str(&text);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(open) = header.as_mut() {
                    open.text.push(' ');
                }
                for open in &mut links {
                    open.text.push(' ');
                }
            }
            _ => {}
        }
    }
    outline.links.sort_by_key(|link| link.line);
    Ok(outline)
}

/// A change to a Markdown text: replace `range` by `text` (splice it into the decoded file, so
/// the lines around keep their bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Splice {
    /// The bytes replaced.
    pub range: Range<usize>,
    /// What stands there after.
    pub text: String,
}

/// Sets the body of the section `heading` (a header path, as for [`section_range`]) to `body`,
/// keeping its header line and every other section as it is; a missing section is appended at
/// the end as a level-2 section (`## heading`). The body ends with one line end.
///
/// ```
/// let doc = "# Tool\n## Usage\nold\n## Licence\nMIT\n";
/// let splice = editkit_analyze::set_section(doc, "Usage", "run it")?;
/// let mut after = doc.to_owned();
/// after.replace_range(splice.range, &splice.text);
/// assert_eq!(after, "# Tool\n## Usage\n\nrun it\n\n## Licence\nMIT\n");
/// let splice = editkit_analyze::set_section(doc, "Notes", "none")?;
/// assert_eq!((splice.range, splice.text.as_str()), (doc.len()..doc.len(), "\n## Notes\n\nnone\n"));
/// # Ok::<(), editkit_analyze::Error>(())
/// ```
///
/// # Errors
/// As [`section_range`], except that a missing single-segment section is appended; a missing
/// nested path (`A > B`) stays [`Error::NotFound`].
pub fn set_section(source: &str, heading: &str, body: &str) -> Result<Splice, Error> {
    let body = format!("{}\n", body.trim_end());
    match section_range(source, heading) {
        Ok(range) => {
            // Keep the header line; replace what follows up to the next section.
            let section = source.get(range.clone()).unwrap_or_default();
            let body_start = section.find('\n').map_or(range.end, |i| range.start + i + 1);
            let trailing = if range.end < source.len() { "\n" } else { "" };
            Ok(Splice { range: body_start..range.end, text: format!("\n{body}{trailing}") })
        }
        Err(Error::NotFound { .. }) if !heading.contains('>') => {
            let sep = if source.is_empty() || source.ends_with("\n\n") {
                ""
            } else if source.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            };
            Ok(Splice { range: source.len()..source.len(), text: format!("{sep}## {}\n\n{body}", heading.trim()) })
        }
        Err(err) => Err(err),
    }
}

/// Sets the document's title: the first line when it is a level-1 header (`# Title`), else a
/// new first line (and a blank line after it).
///
/// ```
/// let splice = editkit_analyze::set_title("# Old\ntext\n", "New");
/// assert_eq!((splice.range, splice.text.as_str()), (0..6, "# New\n"));
/// assert_eq!(editkit_analyze::set_title("text\n", "New").text, "# New\n\n");
/// ```
#[must_use]
pub fn set_title(source: &str, title: &str) -> Splice {
    let line = format!("# {}\n", title.trim());
    if source.starts_with("# ") {
        let first_line_end = source.find('\n').map_or(source.len(), |i| i + 1);
        Splice { range: 0..first_line_end, text: line }
    } else {
        let sep = if source.is_empty() { "" } else { "\n" };
        Splice { range: 0..0, text: format!("{line}{sep}") }
    }
}

/// The byte range of the section under the header path `heading_path` (`Usage > Flags`): from
/// the header's first byte to the next header of the same or a higher level, or the end.
///
/// Each `>`-separated segment is a header text; the last names the section and the ones
/// before it its ancestors. A path matches a header whose full path is equal to it or ends
/// with it, so `Flags` alone works when only one section has that name. Text compares with
/// surrounding whitespace trimmed, then ignoring case if nothing matched exactly.
///
/// ```
/// let doc = "# Tool\n## Usage\n### Flags\n-v\n## Licence\nMIT\n";
/// let range = editkit_analyze::section_range(doc, "Usage > Flags")?;
/// assert_eq!(&doc[range], "### Flags\n-v\n");
/// # Ok::<(), editkit_analyze::Error>(())
/// ```
///
/// # Errors
/// [`Error::NotFound`] listing the header paths, [`Error::Ambiguous`] with the lines of the
/// candidates, [`Error::InvalidArgs`] for an empty path, [`Error::TooLarge`].
pub fn section_range(source: &str, heading_path: &str) -> Result<Range<usize>, Error> {
    check_size(source)?;
    let wanted: Vec<&str> = heading_path.split('>').map(str::trim).collect();
    if wanted.iter().any(|segment| segment.is_empty()) {
        return Err(Error::InvalidArgs {
            argument: "heading_path",
            reason: format!(
                "`{heading_path}` has an empty segment; write header texts joined by `>`, like `Usage > Flags`"
            ),
        });
    }
    let index = LineIndex::new(source);
    // (level, text, start byte) of every header.
    let mut headers: Vec<(u8, String, usize)> = Vec::new();
    let mut open: Option<(u8, String, usize)> = None;
    for (event, range) in Parser::new_ext(source, Options::all()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => open = Some((level as u8, String::new(), range.start)),
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, text, start)) = open.take() {
                    headers.push((level, text.trim().to_owned(), start));
                }
            }
            Event::Text(text) | Event::Code(text) | Event::InlineMath(text) | Event::DisplayMath(text) => {
                if let Some((_, buffer, _)) = open.as_mut() {
                    buffer.push_str(&text);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, buffer, _)) = open.as_mut() {
                    buffer.push(' ');
                }
            }
            _ => {}
        }
    }
    // The full path of every header, from its ancestors.
    let mut ancestors: Vec<(u8, String)> = Vec::new();
    let mut paths: Vec<Vec<String>> = Vec::with_capacity(headers.len());
    for (level, text, _) in &headers {
        while ancestors.last().is_some_and(|(ancestor, _)| ancestor >= level) {
            ancestors.pop();
        }
        ancestors.push((*level, text.clone()));
        paths.push(ancestors.iter().map(|(_, text)| text.clone()).collect());
    }
    let matches_with = |compare: &dyn Fn(&str, &str) -> bool, whole: bool| -> Vec<usize> {
        (0..paths.len())
            .filter(|&at| {
                let path = &paths[at];
                if whole && path.len() != wanted.len() || path.len() < wanted.len() {
                    return false;
                }
                let tail = &path[path.len() - wanted.len()..];
                tail.iter().zip(&wanted).all(|(have, want)| compare(have, want))
            })
            .collect()
    };
    let exact = |have: &str, want: &str| have == want;
    let caseless = |have: &str, want: &str| have.to_lowercase() == want.to_lowercase();
    let mut candidates = matches_with(&exact, true);
    if candidates.is_empty() {
        candidates = matches_with(&exact, false);
    }
    if candidates.is_empty() {
        candidates = matches_with(&caseless, false);
    }
    match candidates.as_slice() {
        [at] => {
            let (level, _, start) = headers.get(*at).expect("candidates index headers");
            let end = headers
                .iter()
                .skip(at + 1)
                .find(|(next_level, _, _)| next_level <= level)
                .map_or(source.len(), |(_, _, next_start)| *next_start);
            Ok(*start..end)
        }
        [] => Err(Error::NotFound {
            what: "section",
            name: heading_path.trim().to_owned(),
            available: paths.iter().map(|path| path.join(" > ")).collect(),
        }),
        many => Err(Error::Ambiguous {
            what: "section",
            name: heading_path.trim().to_owned(),
            lines: many.iter().filter_map(|at| headers.get(*at)).map(|(_, _, start)| index.line(*start)).collect(),
        }),
    }
}
