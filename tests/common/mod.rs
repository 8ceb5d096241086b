//! Helpers shared by integration tests (`mod common;`).

/// Every variable of a VCD header by its hierarchical name
/// (`top.u_child.reg_q`), with its identifier code.
pub fn vcd_names(h: &vcd::Header) -> Vec<(String, vcd::IdCode)> {
    fn walk(items: &[vcd::ScopeItem], prefix: &str, out: &mut Vec<(String, vcd::IdCode)>) {
        for it in items {
            match it {
                vcd::ScopeItem::Scope(s) => walk(&s.items, &format!("{prefix}{}.", s.identifier), out),
                vcd::ScopeItem::Var(v) => out.push((format!("{prefix}{}", v.reference), v.code)),
                _ => {}
            }
        }
    }
    let mut names = vec![];
    walk(&h.items, "", &mut names);
    names
}
