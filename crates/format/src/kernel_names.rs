//! Kernel names as people read them: demangled, and optionally cut to the bare function name
//! (rocprofv3's `--truncate-kernels`).

/// The code-object symbol suffix the runtime may leave on kernel names.
const KERNEL_DESCRIPTOR_SUFFIX: &str = ".kd";

/// The display name of a kernel symbol. Names that are not Itanium-mangled (Triton, hiprtc
/// `extern "C"` kernels) are kept as they are.
pub fn display_name(mangled: &str, demangle: bool, truncate: bool) -> String {
    let symbol = mangled.strip_suffix(KERNEL_DESCRIPTOR_SUFFIX).unwrap_or(mangled);
    let name = if demangle { demangled(symbol).unwrap_or_else(|| symbol.to_owned()) } else { symbol.to_owned() };
    if truncate { truncated(&name).to_owned() } else { name }
}

fn demangled(symbol: &str) -> Option<String> {
    if !symbol.starts_with("_Z") {
        return None;
    }
    let parsed = cpp_demangle::Symbol::new(symbol).ok()?;
    parsed.demangle(&cpp_demangle::DemangleOptions::default()).ok().map(|name| literals_as_libiberty(&name))
}

/// Integer template arguments as libiberty (c++filt, `__cxa_demangle`) writes them: `2ul` where
/// cpp_demangle writes `(unsigned long)2`. rocprofv3 and torch.profiler both demangle with
/// `__cxa_demangle`, so names must match theirs to join across tools.
fn literals_as_libiberty(name: &str) -> String {
    const SUFFIXES: [(&str, &str); 6] = [
        ("(unsigned long long)", "ull"),
        ("(long long)", "ll"),
        ("(unsigned long)", "ul"),
        ("(long)", "l"),
        ("(unsigned int)", "u"),
        ("(unsigned char)", ""),
    ];
    if !name.contains(")") {
        return name.to_owned();
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    'scan: while !rest.is_empty() {
        for (cast, suffix) in SUFFIXES {
            if let Some(after) = rest.strip_prefix(cast) {
                let digits = after.bytes().take_while(|b| b.is_ascii_digit() || *b == b'-').count();
                if digits > 0 && !suffix.is_empty() {
                    out.push_str(&after[..digits]);
                    out.push_str(suffix);
                    rest = &after[digits..];
                    continue 'scan;
                }
            }
        }
        let c = rest.chars().next().unwrap_or_default();
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The function name alone: no return type, scope, template arguments or parameters.
/// `void ns::gemm<float, 64>(float const*, int)` becomes `gemm`.
pub fn truncated(name: &str) -> &str {
    // Cut at the parameter list: the first '(' outside template brackets.
    let mut depth = 0i32;
    let mut end = name.len();
    for (i, c) in name.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth == 0 && i > 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let head = &name[..end];
    // Drop a trailing template argument list.
    let head = if head.ends_with('>') {
        let mut depth = 0i32;
        let mut start = head.len();
        for (i, c) in head.char_indices().rev() {
            match c {
                '>' => depth += 1,
                '<' => {
                    depth -= 1;
                    if depth == 0 {
                        start = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        &head[..start]
    } else {
        head
    };
    // The last scope component, after the return type.
    let head = head.rsplit("::").next().unwrap_or(head);
    let head = head.rsplit(' ').next().unwrap_or(head);
    if head.is_empty() { name } else { head }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mangled_names_are_demangled_and_truncated() {
        let mangled = "_Z13vector_squareIfEvPT_S1_m";
        assert_eq!(display_name(mangled, true, false), "void vector_square<float>(float*, float*, unsigned long)");
        assert_eq!(display_name(mangled, true, true), "vector_square");
        assert_eq!(display_name(mangled, false, false), mangled);
        assert_eq!(display_name("_Z13vector_squareIfEvPT_S1_m.kd", true, true), "vector_square");
    }

    #[test]
    fn plain_names_pass_through() {
        assert_eq!(display_name("triton_poi_fused_add_0", true, true), "triton_poi_fused_add_0");
        assert_eq!(display_name("_Znot-really-mangled", true, false), "_Znot-really-mangled");
    }

    #[test]
    fn truncation_handles_scopes_lambdas_and_operators() {
        assert_eq!(truncated("void at::native::elementwise_kernel<128, 4>(int, at::Lambda)"), "elementwise_kernel");
        assert_eq!(truncated("Cijk_Ailk_Bljk_SB_MT64x64x16"), "Cijk_Ailk_Bljk_SB_MT64x64x16");
        assert_eq!(truncated("ns::k(int (*)(float))"), "k");
    }
}
