//! Launch bounds into PTX: `#[kernel(max_threads = .., ..)]` leaves, per entry point, a global
//! `__ferrocuda_launch_bounds_<entry>` of three `u32` (max threads, min blocks per SM, max
//! registers; 0 for none), since rustc has no way to put PTX directives on a function. This pass
//! removes each such global and writes its values on the entry point as `.maxntid`,
//! `.minnctapersm` and `.maxnreg` (PTX ISA §11.4), between the parameter list and the body,
//! where ptxas reads them as nvcc's `__launch_bounds__`.
use crate::BuildError;

/// The prefix of the globals (`ferrocuda_device::launch::LAUNCH_BOUNDS_SYMBOL_PREFIX`).
const PREFIX: &str = "__ferrocuda_launch_bounds_";

/// `ptx` with every launch-bounds global turned into its entry point's directives; an error
/// naming a global that is malformed or whose entry point is missing.
pub(crate) fn apply(ptx: &str) -> Result<String, BuildError> {
    let mut bounds = Vec::new();
    let mut lines: Vec<&str> = Vec::new();
    for line in ptx.lines() {
        match line.find(PREFIX) {
            Some(at) if line.contains(".global") => bounds.push(parse_global(&line[at + PREFIX.len()..])?),
            _ => lines.push(line),
        }
    }
    let mut out = String::with_capacity(ptx.len() + 64 * bounds.len());
    let mut pending: Option<&(String, [u32; 3])> = None;
    let mut placed = 0;
    for line in lines {
        out.push_str(line);
        out.push('\n');
        if pending.is_none()
            && let Some(found) = bounds.iter().find(|(entry, _)| is_entry_line(line, entry))
        {
            pending = Some(found);
        }
        // The parameter list ends on the `)` line (or on the `.entry` line itself).
        if let Some((_, [max_threads, min_blocks, max_registers])) = pending
            && line.trim_end().ends_with(')')
        {
            if *max_threads != 0 {
                out.push_str(&format!(".maxntid {max_threads}, 1, 1\n"));
            }
            if *min_blocks != 0 {
                out.push_str(&format!(".minnctapersm {min_blocks}\n"));
            }
            if *max_registers != 0 {
                out.push_str(&format!(".maxnreg {max_registers}\n"));
            }
            pending = None;
            placed += 1;
        }
    }
    if placed != bounds.len() {
        let missing: Vec<&str> = bounds
            .iter()
            .filter(|(entry, _)| !ptx.lines().any(|l| is_entry_line(l, entry)))
            .map(|(entry, _)| entry.as_str())
            .collect();
        return Err(BuildError(format!(
            "launch bounds were declared for entry points the PTX does not define: {}",
            missing.join(", ")
        )));
    }
    Ok(out)
}

/// True for the line that opens entry point `entry`: `.visible .entry <entry>(`.
fn is_entry_line(line: &str, entry: &str) -> bool {
    line.split_once(".entry ")
        .is_some_and(|(_, rest)| rest.strip_prefix(entry).is_some_and(|r| r.starts_with('(')))
}

/// `<entry>[12] = {b0, b1, ..};` (bytes, little-endian, trailing zeros left out) as the entry's
/// name and its three values.
fn parse_global(rest: &str) -> Result<(String, [u32; 3]), BuildError> {
    let malformed = || BuildError(format!("cannot read the launch bounds `{PREFIX}{}`", rest.trim()));
    let (entry, values) = rest.split_once('[').ok_or_else(malformed)?;
    let inside = values
        .split_once('{')
        .and_then(|(_, v)| v.split_once('}'))
        .ok_or_else(malformed)?
        .0;
    let mut bytes = [0u8; 12];
    for (k, byte) in inside.split(',').map(str::trim).filter(|b| !b.is_empty()).enumerate() {
        *bytes.get_mut(k).ok_or_else(malformed)? = byte.parse().map_err(|_| malformed())?;
    }
    let word = |k: usize| u32::from_le_bytes([bytes[4 * k], bytes[4 * k + 1], bytes[4 * k + 2], bytes[4 * k + 3]]);
    Ok((entry.to_string(), [word(0), word(1), word(2)]))
}

#[cfg(test)]
mod tests {
    use super::apply;

    const PTX: &str = "\
.version 8.7
.target sm_90
.visible .global .align 4 .b8 __ferrocuda_launch_bounds_scan_f32[12] = {128, 0, 0, 0, 10};
.visible .global .align 4 .b8 __ferrocuda_launch_bounds_copy[12] = {0, 1, 0, 0, 0, 0, 0, 0, 40};
.visible .entry scan_f32(
\t.param .align 8 .b8 scan_f32_param_0[96]
)
{
\tret;
}
.visible .entry scan_f32_wide(
\t.param .align 8 .b8 scan_f32_wide_param_0[96]
)
{
\tret;
}
.visible .entry copy(.param .u64 copy_param_0)
{
\tret;
}
";

    #[test]
    fn bounds_become_directives_of_their_entry_only() {
        let out = apply(PTX).unwrap();
        assert!(!out.contains("__ferrocuda_launch_bounds_"), "{out}");
        assert!(
            out.contains("scan_f32_param_0[96]\n)\n.maxntid 128, 1, 1\n.minnctapersm 10\n{"),
            "{out}"
        );
        assert!(out.contains("scan_f32_wide_param_0[96]\n)\n{"), "{out}");
        assert!(
            out.contains("copy_param_0)\n.maxntid 256, 1, 1\n.maxnreg 40\n{"),
            "{out}"
        );
    }

    #[test]
    fn bounds_of_a_missing_entry_are_an_error() {
        let ptx = PTX.replace(".visible .entry copy(", ".visible .entry other(");
        let err = apply(&ptx).unwrap_err().to_string();
        assert!(err.contains("does not define: copy"), "{err}");
    }

    #[test]
    fn ptx_without_bounds_is_unchanged() {
        let ptx = ".version 8.7\n.visible .entry k(\n)\n{\n\tret;\n}\n";
        assert_eq!(apply(ptx).unwrap(), ptx);
    }
}
