// Package tools knows the browser tools the model may call: the eight built-ins'
// schemas, the host tools a page registers, the work-mode permission matrix, and the
// server-side argument checks done before a call becomes an RTC. It does no I/O.
package tools
