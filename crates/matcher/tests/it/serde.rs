//! The serialised shape the facade puts into JSON results (feature `serde`).

use editkit_matcher::{Error, MatchOptions};

#[test]
fn match_serialises_with_snake_case_rung() {
    let found = editkit_matcher::find("a\n  b  \n", "b", &MatchOptions::default()).unwrap();
    let json = serde_json::to_value(&found).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "byte_range": {"start": 4, "end": 5},
            "line_range": {"start": 1, "end": 2},
            "rung": "exact",
            "score": 1.0,
            "alignment": "aligned"
        })
    );
}

#[test]
fn near_miss_serialises() {
    let err = editkit_matcher::find("x = 1\ny = 2\n", "x = 1\ny = 3", &MatchOptions::default()).unwrap_err();
    let Error::NotFound { closest: Some(near) } = err else { panic!("{err:?}") };
    let json = serde_json::to_value(&near).unwrap();
    assert_eq!(json["first_line"], 1);
    assert_eq!(json["divergence"]["line"], 2);
    assert_eq!(json["divergence"]["found"], "y·=·2");
}

#[test]
fn rungs_serialise_as_their_names() {
    for rung in editkit_matcher::Rung::ALL {
        assert_eq!(serde_json::to_value(rung).unwrap(), rung.as_str());
    }
}
