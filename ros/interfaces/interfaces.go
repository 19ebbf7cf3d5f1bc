// Package interfaces ships the ROS 2 interface definitions (.msg, .srv and
// .action files) of the common packages, as written for ROS 2 Jazzy and
// Kilted, so that programs can compute type hashes and generate code
// without a ROS installation.
//
// Packages: every package of common_interfaces (actionlib_msgs,
// diagnostic_msgs, geometry_msgs, nav_msgs, sensor_msgs, shape_msgs,
// std_msgs, std_srvs, stereo_msgs, trajectory_msgs, visualization_msgs),
// the core packages (action_msgs, builtin_interfaces, lifecycle_msgs,
// rcl_interfaces, rmw_dds_common, rosgraph_msgs, service_msgs,
// type_description_interfaces, unique_identifier_msgs), example_interfaces
// test_msgs (its .msg, .srv and .action types; not the keyed ones,
// which exist as .idl only) and tf2_msgs.
// The files carry fields, constants and default values only (no comments),
// laid out as "<pkg>/msg/<Name>.msg", "<pkg>/srv/<Name>.srv" and
// "<pkg>/action/<Name>.action".
package interfaces

import (
	"embed"
	"io/fs"

	"github.com/afor-go/afor/ros/idl"
)

//go:embed */msg/*.msg */srv/*.srv */action/*.action
var files embed.FS

// FS returns the shipped interface files, laid out as
// "<pkg>/{msg,srv,action}/<Name>.<ext>".
func FS() fs.FS { return files }

// Load registers every shipped interface in r.
func Load(r *idl.Registry) error { return r.LoadFS(files) }

// Registry returns a new registry holding every shipped interface.
func Registry() (*idl.Registry, error) {
	r := idl.NewRegistry()
	if err := Load(r); err != nil {
		return nil, err
	}
	return r, nil
}
