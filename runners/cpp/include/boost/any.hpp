// The judge's stand-in for <boost/any.hpp> (runners/cpp/include/boost/any.hpp): HumanEval-X's
// C++ problems with values of any type (filter_integers, compare_one) use boost::any, which
// is std::any with the same interface for what they do (type(), any_cast, bad_any_cast). The
// harness reads a test's ``Any`` argument into a std::any and writes a returned one.
#pragma once
#include <any>
#include <typeinfo>
namespace boost {
using std::any;
using std::any_cast;
using std::bad_any_cast;
}  // namespace boost
