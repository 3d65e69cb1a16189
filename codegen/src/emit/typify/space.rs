//! typify's `TypeSpace`, with panics contained.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use typify::{TypeSpace, TypeSpaceSettings};

pub(super) fn settings() -> TypeSpaceSettings {
    let mut s = TypeSpaceSettings::default();
    s.with_struct_builder(false);
    if let Ok(map) = "::std::collections::BTreeMap".parse::<typify::MapType>() {
        s.with_map_type(map);
    }
    s
}

pub(super) fn new_space(
    defs: &BTreeMap<String, schemars::schema::Schema>,
) -> Result<TypeSpace, ()> {
    quietly(|| {
        let mut space = TypeSpace::new(&settings());
        space
            .add_ref_types(defs.clone())
            .map(|_| space)
            .map_err(|_| ())
    })
    .map_err(|_| ())?
}

pub(super) fn add_root(
    space: &mut TypeSpace,
    name: &str,
    schema: &schemars::schema::Schema,
) -> Result<typify::TypeId, ()> {
    quietly(|| {
        space
            .add_type_with_name(schema, Some(name.to_owned()))
            .map_err(|_| ())
    })
    .map_err(|_| ())?
}

/// Runs `f`, turning a panic into `Err`. The panic hook is not touched (it is process-wide
/// state other threads use), so the hook in place reports the panic as it would any other.
pub(super) fn quietly<R>(f: impl FnOnce() -> R) -> Result<R, ()> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| ())
}
