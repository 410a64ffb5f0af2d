module Shop
  module Findable
    def find_all; end
  end

  class Base
    def initialize(name)
      @name = name
    end

    def save
      validate
    end

    def validate; end

    def self.create(name)
      new(name)
    end
  end
end
