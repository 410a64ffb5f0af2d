require_relative 'base'
require_relative 'repo'
require_relative 'missing'

module Shop
  module Models
    class User < Base
      include Findable
      extend Comparable
      attr_accessor :name, :repo
      attr_reader :age

      def initialize(name)
        super(name)
        @repo = Repo.new
      end

      def save
        self.check
        check
        find_all
        @repo.store(self)
        super
      end

      def check; end

      def self.build(name)
        u = User.new(name)
        u.save
        Base.create(name)
        Shop::Repo.new.store(u)
        unknown.thing
        puts "x"
      end

      class << self
        def registry; end
      end
    end
  end
end
