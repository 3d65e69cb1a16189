use mcpgen::mcp_tools;

struct Rooms;

#[mcp_tools]
impl Rooms {
    /// Lists rooms.
    #[mcp_tool(read_only)]
    fn list_rooms(&self) -> Vec<String> {
        Vec::new()
    }

    /// Lists rooms, the old way.
    #[mcp_tool(name = "list_rooms", read_only)]
    fn list_rooms_v1(&self) -> Vec<String> {
        Vec::new()
    }
}

fn main() {
    let _set = Rooms.into_tool_set();
}
