module Shop
  class Repo
    def store(obj); end
  end
end
