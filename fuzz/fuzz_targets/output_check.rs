//! The tolerant output check: `tolerant_output` relaxes a documented output schema into the
//! one servers advertise. The input is JSON `[schema, instance]`; whenever the documented
//! schema accepts the instance, the tolerant one must accept it too (the relaxation never
//! rejects data the API documents).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen_codegen::tolerant::tolerant_output;
use serde_json::Value;

fn validator(schema: &Value) -> Option<jsonschema::Validator> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .ok()
}

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Array(pair)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let [documented, instance] = pair.as_slice() else {
        return;
    };
    if !documented.is_object() {
        return;
    }
    let tolerant = tolerant_output(documented);
    let (Some(strict), Some(relaxed)) = (validator(documented), validator(&tolerant)) else {
        return;
    };
    if strict.is_valid(instance) {
        assert!(
            relaxed.is_valid(instance),
            "documented accepts, tolerant rejects: schema {documented}, tolerant {tolerant}, instance {instance}"
        );
    }
});
