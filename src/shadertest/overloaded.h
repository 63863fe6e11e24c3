// std::visit over several lambdas: Overloaded{[](const A&) {...}, [](const B&) {...}}.
#pragma once

namespace agx::shadertest {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace agx::shadertest
