Gem::Specification.new do |s|
  s.name = "shop"
  s.add_dependency "rack", ">= 2"
  s.add_runtime_dependency("logger")
  s.add_development_dependency "rake", "~> 13.0"
end
