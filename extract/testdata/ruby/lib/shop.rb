require_relative 'shop/base'
require 'shop/user'
require 'json'
