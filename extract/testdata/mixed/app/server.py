def serve():
    pass
