import sys

print(sys.argv)

if __name__ == '__main__':
    print("done")
