// Package idl parses ROS 2 interface definitions (.msg, .srv and .action
// files) into a small syntax tree, resolves nested types across packages in a
// [Registry], and computes the RIHS01 type hashes (REP-2011) that ROS 2
// Iron and newer exchange during discovery.
//
// The accepted syntax and the validation rules follow rosidl_adapter's .msg
// parser: one field or constant per line, '#' starts a comment, field names
// are lower_snake_case, constant names UPPER_SNAKE_CASE, nested type names
// CamelCase. A bare "Header" means std_msgs/Header, any other unqualified
// type belongs to the package of the file.
//
// The tree is what code generators and the CDR codec build on:
//
//   - [Message]: a package, a name, [Field]s and [Constant]s.
//   - [Service]: Request and Response messages; [Service.Event] synthesizes
//     the event message used for service introspection.
//   - [Action]: Goal, Result and Feedback messages; the derived SendGoal and
//     GetResult services and the FeedbackMessage are synthesized on demand.
//   - [Type]: a primitive [Kind] or a nested type reference, optionally an
//     array ([ArrayKind]: fixed, bounded or unbounded).
//
// Type hashes: [Registry.TypeHash] returns "RIHS01_<hex>" for any
// registered message, service or action, exactly as
// rosidl_generator_type_description computes it; [Registry.TypeDescription]
// gives the description it hashes (with default values, as a node's
// GetTypeDescription service reports them).
//
// An empty message (no fields) is kept empty in the tree. Wire formats and
// type hashes treat it as if it had the single field
// "uint8 structure_needs_at_least_one_member" (see [PlaceholderField]).
package idl
