//! What the macro tells the runtime about one handler: a static table of its steps, emitted
//! beside the method. Resuming a step needs nothing of the handler but this table and its arm,
//! and a step's layout string is what makes a continuation from another build refuse to open.

/// Static facts about one lowered handler, emitted by the macro.
#[derive(Debug)]
pub struct Handler {
    /// `module_path!()::fn_name`, for logs.
    pub path: &'static str,
    /// The resume steps, in source order.
    pub steps: &'static [StepInfo],
    /// What the handler's asks can need from a client, as dotted capability paths
    /// (`elicitation.form`, `elicitation.url`, `sampling`, `roots`), derived from its `ask!`s.
    pub capabilities: &'static [&'static str],
}

/// One resume point of a lowered handler.
#[derive(Debug)]
pub struct StepInfo {
    /// The step enum's variant name, as sealed in `requestState`.
    pub name: &'static str,
    /// The wire keys asked at this step (`confirm#{i0}` for per-iteration keys).
    pub keys: &'static [&'static str],
    /// The locals carried to this step, in the order they are saved.
    pub carried: &'static [&'static str],
    /// Where the body resumes: the program counter of the step's arm.
    #[doc(hidden)]
    pub pc: u32,
    /// Which of the handler's slots the step carries (bit `i` = slot `i`).
    #[doc(hidden)]
    pub mask: u64,
    /// Handler path, step, keys and carried names: hashed with the slots' type names into the
    /// step's layout fingerprint.
    pub layout: &'static str,
}

/// The wire key of an ask inside loops: `name#i0.i1`, the loops' indices outermost first.
///
/// Built at every ask and every resume of a per-iteration key, so it writes the digits itself
/// instead of going through `format!`'s machinery, which cost several times the key's bytes.
pub fn loop_key(name: &str, indices: &[usize]) -> String {
    let mut key = String::with_capacity(name.len() + 1 + indices.len() * 4);
    key.push_str(name);
    for (position, &index) in indices.iter().enumerate() {
        key.push(if position == 0 { '#' } else { '.' });
        push_decimal(&mut key, index);
    }
    key
}

fn push_decimal(out: &mut String, mut value: usize) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&digits[start..]).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::loop_key;

    #[test]
    fn a_loop_key_is_what_the_documented_format_gives() {
        for indices in [&[][..], &[0], &[7], &[10, 0], &[3, 1_000_000, usize::MAX]] {
            let mut expected = "confirm".to_owned();
            for (position, index) in indices.iter().enumerate() {
                let separator = if position == 0 { '#' } else { '.' };
                expected.push_str(&format!("{separator}{index}"));
            }
            assert_eq!(loop_key("confirm", indices), expected);
        }
    }
}
