//! The bounds of what one record holds, checked where a record comes in
//! (an API request, a world document), so that no request or document
//! can make every later list large: a key's label and body, tags, the
//! keys of one owner, a device's strings.
//!
//! The real API's own limits are not published. Its refusals are Rails
//! validations ("Fingerprint has already been taken"), whose string
//! columns hold 255 characters by default; the fake takes that for labels,
//! hostnames and tags, and generous bounds elsewhere (see
//! [`crate::fidelity`]).

use crate::call::ApiError;

/// The longest SSH key label, hostname or tag, in bytes.
pub(crate) use crate::document::MAX_NAME;

/// The longest public key, in bytes (an RSA 16384-bit key is about 2.8
/// KiB).
pub(crate) const MAX_KEY: usize = 16 * 1024;

/// The most tags one record holds.
pub(crate) const MAX_TAGS: usize = 256;

/// The most SSH keys one owner (the user, or a project) holds.
pub(crate) const MAX_KEYS_PER_OWNER: usize = 1000;

/// The longest free text of a device (description, user data, iPXE script
/// URL, custom data as JSON), in bytes.
pub(crate) const MAX_TEXT: usize = 256 * 1024;

/// The most changes the world's journal keeps: a ring, the oldest
/// dropped first (the events lists read it, so this is also how far back
/// they reach).
pub(crate) const MAX_JOURNAL: usize = 10_000;

/// Room for one more record of `kind` in a world holding `count`: `422`
/// past [`crate::document::MAX_RECORDS`], the bound a world document
/// holds too.
pub(crate) fn room_for(kind: &str, count: usize) -> Result<(), ApiError> {
    if count >= crate::document::MAX_RECORDS {
        return Err(ApiError::unprocessable(format!(
            "{kind} are too many (maximum is {} a world)",
            crate::document::MAX_RECORDS
        )));
    }
    Ok(())
}

/// Why a field is out of bounds: `None` when it is within them.
pub(crate) fn too_long(field: &str, value: &str, max: usize) -> Option<String> {
    (value.len() > max).then(|| format!("{field} is too long (maximum is {max} bytes)"))
}

/// Why a record's tags are out of bounds: too many, or one too long.
pub(crate) fn bad_tags(tags: &[String]) -> Option<String> {
    if tags.len() > MAX_TAGS {
        return Some(format!("Tags are too many (maximum is {MAX_TAGS})"));
    }
    tags.iter().find_map(|t| too_long("Tag", t, MAX_NAME))
}

/// The first problem of `checks` as the API's `422`.
pub(crate) fn refuse(checks: impl IntoIterator<Item = Option<String>>) -> Result<(), ApiError> {
    match checks.into_iter().flatten().next() {
        Some(problem) => Err(ApiError::unprocessable(problem)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_at_its_bound_passes_and_one_byte_more_is_refused() {
        assert_eq!(too_long("Label", &"a".repeat(MAX_NAME), MAX_NAME), None);
        assert!(too_long("Label", &"a".repeat(MAX_NAME + 1), MAX_NAME).is_some());
        assert_eq!(bad_tags(&vec!["t".to_string(); MAX_TAGS]), None);
        assert!(bad_tags(&vec!["t".to_string(); MAX_TAGS + 1]).is_some());
        assert!(bad_tags(&["a".repeat(MAX_NAME + 1)]).is_some());
        assert_eq!(refuse([None, None]), Ok(()));
        assert_eq!(refuse([None, Some("x".into())]).unwrap_err().status, 422);
    }
}
