//! How the log's records are framed: one line each, the CRC-32 of the
//! JSON that follows as 8 hex digits, a space, the JSON (compact, so no
//! newline inside), a newline. Reading finds where each record starts,
//! drops a torn last record, and refuses a damaged one before it.

/// The framed line of `json` (compact JSON, no newline in it).
pub(crate) fn frame(json: &[u8]) -> Vec<u8> {
    let mut line = Vec::with_capacity(json.len() + 10);
    line.extend_from_slice(format!("{:08x} ", crc32fast::hash(json)).as_bytes());
    line.extend_from_slice(json);
    line.push(b'\n');
    line
}

/// A record read back: where its line starts, and its JSON.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Framed<'a> {
    /// The byte offset of its line in the log.
    pub(crate) offset: u64,
    /// Its JSON, its checksum verified.
    pub(crate) json: &'a [u8],
}

/// The last record, cut short by a crash while it was written: dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Torn {
    /// Where it starts.
    pub(crate) offset: u64,
    /// How many bytes of it there are.
    pub(crate) len: u64,
}

/// A record that is damaged with more of the log after it: not a crash
/// mid-write, so the log is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Damaged {
    /// Where its line starts.
    pub(crate) offset: u64,
    /// What is wrong with it.
    pub(crate) why: &'static str,
}

/// The whole records of `log`, in order, and the torn last one if any.
///
/// A line without its newline at the end, or a last line whose checksum
/// does not match (followed by nothing, or only by the zero bytes a file
/// system may leave after a crash), is torn. A damaged line with any
/// record after it is [`Damaged`].
pub(crate) fn read(log: &[u8]) -> Result<(Vec<Framed<'_>>, Option<Torn>), Damaged> {
    let mut records = Vec::new();
    let mut at = 0usize;
    while at < log.len() {
        let rest = &log[at..];
        let torn = Torn {
            offset: at as u64,
            len: rest.len() as u64,
        };
        let Some(end) = rest.iter().position(|b| *b == b'\n') else {
            return Ok((records, Some(torn)));
        };
        match check(&rest[..end]) {
            Ok(json) => records.push(Framed {
                offset: at as u64,
                json,
            }),
            Err(why) => {
                let after = &rest[end + 1..];
                if after.iter().all(|b| *b == 0) {
                    return Ok((records, Some(torn)));
                }
                return Err(Damaged {
                    offset: at as u64,
                    why,
                });
            }
        }
        at += end + 1;
    }
    Ok((records, None))
}

/// The JSON of one line (without its newline), its checksum verified.
fn check(line: &[u8]) -> Result<&[u8], &'static str> {
    if line.len() < 10 || line[8] != b' ' {
        return Err("not a framed record (8 hex digits, a space, JSON)");
    }
    let crc = std::str::from_utf8(&line[..8])
        .ok()
        .and_then(|hex| u32::from_str_radix(hex, 16).ok())
        .ok_or("its checksum is not 8 hex digits")?;
    let json = &line[9..];
    if crc32fast::hash(json) != crc {
        return Err("its checksum does not match its bytes");
    }
    Ok(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(records: &[&str]) -> Vec<u8> {
        records.iter().flat_map(|r| frame(r.as_bytes())).collect()
    }

    fn jsons(log: &[u8]) -> (Vec<String>, Option<Torn>) {
        let (records, torn) = read(log).unwrap();
        let texts = records
            .iter()
            .map(|r| String::from_utf8(r.json.to_vec()).unwrap())
            .collect();
        (texts, torn)
    }

    #[test]
    fn whole_records_read_back_in_order_with_their_offsets() {
        let bytes = log(&[r#"{"a":1}"#, r#"{"b":"x y"}"#]);
        let (records, torn) = read(&bytes).unwrap();
        assert_eq!(torn, None);
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].offset, 0);
        assert_eq!(records[1].offset, frame(br#"{"a":1}"#).len() as u64);
        assert_eq!(records[1].json, br#"{"b":"x y"}"#);
        assert_eq!(read(b"").unwrap(), (Vec::new(), None));
    }

    #[test]
    fn a_record_cut_anywhere_is_torn_and_dropped_never_read_half() {
        let whole = log(&[r#"{"a":1}"#, r#"{"b":2,"c":[1,2,3]}"#]);
        let first = frame(br#"{"a":1}"#).len();
        // Every cut inside the second record, its newline included.
        for cut in first + 1..whole.len() {
            let (texts, torn) = jsons(&whole[..cut]);
            assert_eq!(texts, vec![r#"{"a":1}"#.to_string()], "cut at {cut}");
            assert_eq!(
                torn,
                Some(Torn {
                    offset: first as u64,
                    len: (cut - first) as u64
                }),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn a_last_record_garbled_or_followed_by_zeros_is_torn() {
        let mut bytes = log(&[r#"{"a":1}"#, r#"{"b":2}"#]);
        let last = bytes.len() - 3;
        bytes[last] = b'9';
        let (texts, torn) = jsons(&bytes);
        assert_eq!(texts.len(), 1);
        assert!(torn.is_some());
        // The zeros a file system may leave past what was written.
        let mut zeros = log(&[r#"{"a":1}"#]);
        zeros.extend_from_slice(b"0000");
        zeros.push(b'\n');
        zeros.extend_from_slice(&[0; 64]);
        let (texts, torn) = jsons(&zeros);
        assert_eq!(texts.len(), 1);
        assert!(torn.is_some());
    }

    #[test]
    fn a_damaged_record_before_the_last_is_refused_naming_its_offset() {
        let mut bytes = log(&[r#"{"a":1}"#, r#"{"b":2}"#, r#"{"c":3}"#]);
        let second = frame(br#"{"a":1}"#).len();
        bytes[second + 12] = b'7';
        assert_eq!(
            read(&bytes).unwrap_err(),
            Damaged {
                offset: second as u64,
                why: "its checksum does not match its bytes"
            }
        );
        let mut bytes = log(&[r#"{"a":1}"#, r#"{"b":2}"#]);
        bytes[0] = b'z';
        assert_eq!(read(&bytes).unwrap_err().offset, 0);
        let mut bytes = b"short\n".to_vec();
        bytes.extend(log(&[r#"{"a":1}"#]));
        assert_eq!(
            read(&bytes).unwrap_err().why,
            "not a framed record (8 hex digits, a space, JSON)"
        );
    }
}
