// SPDX-License-Identifier: MIT
// The type-erased description of the fields of one exchange: the only per-type code of the
// Communicator (doc/architecture.md, "One halo exchange").
#pragma once

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/halo/packKernels.hpp"
#include "fieldsync/halo/reverseOp.hpp"
#include "fieldsync/mpi/memorySpace.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <source_location>
#include <span>
#include <type_traits>
#include <typeinfo>
#include <vector>

namespace fieldsync::halo::detail
{

/**
 * @brief What the unpack of one field relies on: memory, extents, strides, layout and value
 * type. Kept at start and compared at finalise, so that a finalise on another field (another
 * view over the same pointer included) is an Error, never a write past the field.
 */
struct FieldShape
{
    const void* data { nullptr };                     /**< first value */
    std::size_t cells { 0 };                          /**< extent 0 */
    std::size_t components { 1 };                     /**< extent 1 (1 for rank 1) */
    std::size_t cellStride { 1 };                     /**< stride 0, in values */
    std::size_t componentStride { 1 };                /**< stride 1, in values (1 for rank 1) */
    const std::type_info* viewType { &typeid(void) }; /**< value type, layout and memory space */

    /** @brief Whether two shapes describe the same field. */
    [[nodiscard]] bool operator==(const FieldShape& other) const noexcept
    {
        return data == other.data && cells == other.cells && components == other.components &&
               cellStride == other.cellStride && componentStride == other.componentStride &&
               *viewType == *other.viewType;
    }

    /**
     * @brief Whether cell i's components are at data + i * components (ValueOrder::Rows: a run of
     * cells is one stretch of memory, so it can go to MPI in place).
     */
    [[nodiscard]] bool rowsContiguous() const noexcept
    {
        return valueOrder(components, cellStride, componentStride) == ValueOrder::Rows;
    }
};

/**
 * @brief Runs [begin, end) of an IndexRuns' arrays copied to the fields' memory space, and the
 * list positions they cover end before @p positions (buffers are sized by it).
 */
struct RunRange
{
    const LocalIndex* first { nullptr }; /**< first cell of each run (IndexRuns::first) */
    const std::size_t* at { nullptr };   /**< list position of each run (IndexRuns::at) */
    std::size_t begin { 0 };             /**< first run */
    std::size_t end { 0 };               /**< one past the last run */
    std::size_t positions { 0 };         /**< one past the last list position of the runs */
};

/**
 * @brief Holds the fields of an exchange in flight whose memory MPI reads or writes in place, so
 * that a field the caller lets go before finalising (or before destroying the Communicator) is
 * not freed under MPI. Made once per exchange and view type, then reused: holding costs a
 * reference count per view, no allocation.
 */
class FieldKeeper
{
public:
    virtual ~FieldKeeper() = default;

    /** @brief The view type held (a keeper is reused only for the same type). */
    [[nodiscard]] virtual const std::type_info& viewType() const noexcept = 0;

    /** @brief Lets the fields go (their memory is freed if nothing else holds it). */
    virtual void drop() noexcept = 0;
};

/**
 * @brief The fields of one exchange (one or several views of one type), type-erased: shapes,
 * value type, memory space, and the pack, unpack and fence operations instantiated for the view
 * type. Built on the caller's stack by the Communicator's templates (ViewFields) for the length
 * of one call; the compiled engine uses nothing else of the fields.
 */
class Fields
{
public:
    /** @brief Number of fields. */
    [[nodiscard]] virtual std::size_t count() const noexcept = 0;

    /** @brief The shape of field @p f. */
    [[nodiscard]] virtual FieldShape shape(std::size_t f) const noexcept = 0;

    /** @brief The value type. */
    [[nodiscard]] virtual const std::type_info& valueType() const noexcept = 0;

    /** @brief Bytes of one value. */
    [[nodiscard]] virtual std::size_t valueSize() const noexcept = 0;

    /** @brief Whether the value type is arithmetic (combining reverse ops need it). */
    [[nodiscard]] virtual bool arithmetic() const noexcept = 0;

    /** @brief The memory space of the fields. */
    [[nodiscard]] virtual const mpi::detail::SpaceOps& space() const noexcept = 0;

    /**
     * @brief Whether the kernels run synchronously on the host (mpi::synchronousHost of the
     * execution space): only there can packRuns() run. Whether lists are packed by runs is the
     * engine's pack plan's to decide.
     */
    [[nodiscard]] virtual bool synchronousHost() const noexcept = 0;

    /** @brief Deprecated: the engine's pack plan decides; this says synchronousHost(). */
    [[deprecated("the pack plan decides; ask Fields::synchronousHost()")]] [[nodiscard]] bool
    packsByRuns() const noexcept
    {
        return synchronousHost();
    }

    /**
     * @brief Packs cells idx[begin, end) of field @p f into @p buffer (bytes in the fields'
     * space) at value (i * stride + offset + c), with the general gather (halo::pack()); lists
     * of runs go to packRuns().
     */
    virtual void pack(
        std::size_t f,
        const LocalIndex* idx,
        char* buffer,
        std::size_t begin,
        std::size_t end,
        std::size_t stride,
        std::size_t offset
    ) const = 0;

    /** @brief Combines buffer values into cells idx[begin, end) of field @p f with @p op. */
    virtual void unpack(
        std::size_t f,
        const LocalIndex* idx,
        const char* buffer,
        std::size_t begin,
        std::size_t end,
        std::size_t stride,
        std::size_t offset,
        ReverseOp op
    ) const = 0;

    /**
     * @brief Packs the cells of @p runs of field @p f into @p buffer at value
     * (i * stride + offset + c), i the list position (halo::packRuns()).
     */
    virtual void packRuns(
        std::size_t f, const RunRange& runs, char* buffer, std::size_t stride, std::size_t offset
    ) const = 0;

    /** @brief Combines buffer values into the cells of @p runs of field @p f with @p op. */
    virtual void unpackRuns(
        std::size_t f,
        const RunRange& runs,
        const char* buffer,
        std::size_t stride,
        std::size_t offset,
        ReverseOp op
    ) const = 0;

    /** @brief Waits for the fields' execution space (nothing for synchronous host spaces). */
    virtual void fence() const = 0;

    /**
     * @brief Holds the fields in @p keeper (made, or remade for another view type, when it does
     * not hold this type) until its drop().
     */
    virtual void keep(std::unique_ptr<FieldKeeper>& keeper) const = 0;

protected:
    ~Fields() = default;
};

/** @brief The FieldKeeper of views of type @p V: copies of the views (reference counts). */
template<typename V>
class ViewKeeper final : public FieldKeeper
{
public:
    const std::type_info& viewType() const noexcept override { return typeid(V); }

    void drop() noexcept override
    {
        first_.reset();
        if (!rest_.empty())
        {
            rest_.clear(); // keeps the capacity: no allocation
        }
    }

    /** @brief Holds @p views (replacing what it held). */
    void hold(std::span<const V> views)
    {
        if (views.empty())
        {
            drop();
            return;
        }
        first_.emplace(views.front());
        if (views.size() > 1 || !rest_.empty())
        {
            rest_.assign(views.begin() + 1, views.end());
        }
    }

private:
    std::optional<V> first_; /**< the first view held (an exchange of one field holds only it) */
    std::vector<V> rest_;    /**< the other views held */
};

/**
 * @brief The Fields of views of type @p V (rank 1 or 2); holds the caller's views by reference.
 * Pack and unpack kernels are enqueued on the instance @p Exec given (the default instance of
 * the view's execution space unless given), and fence() waits for that instance alone.
 */
template<typename V, typename Exec = typename V::execution_space>
class ViewFields final : public Fields
{
public:
    using T = typename V::non_const_value_type; /**< value type */
    using MemSpace = typename V::memory_space;  /**< memory space */

    static_assert(std::is_trivially_copyable_v<T>, "halo fields hold trivially copyable values");
    static_assert(!std::is_const_v<typename V::value_type>, "halo fields must be writable");
    static_assert(
        Kokkos::SpaceAccessibility<Exec, MemSpace>::accessible,
        "the execution space given to the Communicator cannot access the field's memory space"
    );

    /** @brief The fields @p views (which must outlive this object), with kernels on @p exec. */
    explicit ViewFields(std::span<const V> views, const Exec& exec = Exec()) noexcept
        : views_(views), exec_(exec)
    {
    }

    std::size_t count() const noexcept override { return views_.size(); }

    FieldShape shape(std::size_t f) const noexcept override
    {
        const V& v = views_[f];
        FieldShape s { v.data(), v.extent(0), componentsOf(v), v.stride(0), 1, &typeid(Plain) };
        if constexpr (viewRank<V> == 2)
        {
            s.componentStride = v.stride(1);
        }
        return s;
    }

    const std::type_info& valueType() const noexcept override { return typeid(T); }

    std::size_t valueSize() const noexcept override { return sizeof(T); }

    bool arithmetic() const noexcept override { return std::is_arithmetic_v<T>; }

    const mpi::detail::SpaceOps& space() const noexcept override
    {
        return mpi::detail::spaceOps<MemSpace>();
    }

    bool synchronousHost() const noexcept override { return mpi::synchronousHost<Exec>; }

    void pack(
        std::size_t f,
        const LocalIndex* idx,
        char* buffer,
        std::size_t begin,
        std::size_t end,
        std::size_t stride,
        std::size_t offset
    ) const override
    {
        halo::pack(
            views_[f],
            valuesAt(buffer, end, stride),
            indices(idx, end),
            begin,
            end,
            stride,
            offset,
            exec_
        );
    }

    void unpack(
        std::size_t f,
        const LocalIndex* idx,
        const char* buffer,
        std::size_t begin,
        std::size_t end,
        std::size_t stride,
        std::size_t offset,
        ReverseOp op
    ) const override
    {
        halo::unpack(
            views_[f],
            valuesAt(const_cast<char*>(buffer), end, stride),
            indices(idx, end),
            begin,
            end,
            stride,
            offset,
            op,
            exec_
        );
    }

    void packRuns(
        std::size_t f, const RunRange& runs, char* buffer, std::size_t stride, std::size_t offset
    ) const override
    {
        if constexpr (mpi::synchronousHost<Exec>)
        {
            halo::packRuns(
                views_[f],
                valuesAt(buffer, runs.positions, stride),
                indices(runs.first, runs.end),
                positions(runs.at, runs.end + 1),
                runs.begin,
                runs.end,
                stride,
                offset,
                exec_
            );
        }
        else
        {
            noRuns();
        }
    }

    void unpackRuns(
        std::size_t f,
        const RunRange& runs,
        const char* buffer,
        std::size_t stride,
        std::size_t offset,
        ReverseOp op
    ) const override
    {
        if constexpr (mpi::synchronousHost<Exec>)
        {
            halo::unpackRuns(
                views_[f],
                valuesAt(const_cast<char*>(buffer), runs.positions, stride),
                indices(runs.first, runs.end),
                positions(runs.at, runs.end + 1),
                runs.begin,
                runs.end,
                stride,
                offset,
                op,
                exec_
            );
        }
        else
        {
            noRuns();
        }
    }

    void fence() const override
    {
        if constexpr (!mpi::synchronousHost<Exec>)
        {
            exec_.fence();
        }
    }

    void keep(std::unique_ptr<FieldKeeper>& keeper) const override
    {
        if (keeper == nullptr || keeper->viewType() != typeid(V))
        {
            keeper = std::make_unique<ViewKeeper<V>>();
        }
        static_cast<ViewKeeper<V>&>(*keeper).hold(views_);
    }

private:
    using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;

    /** @brief The engine's plan asks synchronousHost() first: runs never reach another space. */
    [[noreturn]] static void noRuns()
    {
        throw Error(
            "halo: pack by runs asked of an execution space that packs by gather", // never reached
            std::source_location::current()
        );
    }

    /** @brief What the unpack relies on of V: value type, rank, layout, memory space. */
    using Plain = Kokkos::View<typename V::non_const_data_type, typename V::array_layout, MemSpace>;

    static Kokkos::View<T*, MemSpace, Unmanaged>
    valuesAt(char* buffer, std::size_t end, std::size_t stride)
    {
        return Kokkos::View<T*, MemSpace, Unmanaged>(reinterpret_cast<T*>(buffer), end * stride);
    }

    static Kokkos::View<const LocalIndex*, MemSpace, Unmanaged>
    indices(const LocalIndex* idx, std::size_t end)
    {
        return Kokkos::View<const LocalIndex*, MemSpace, Unmanaged>(idx, end);
    }

    static Kokkos::View<const std::size_t*, MemSpace, Unmanaged>
    positions(const std::size_t* at, std::size_t size)
    {
        return Kokkos::View<const std::size_t*, MemSpace, Unmanaged>(at, size);
    }

    std::span<const V> views_; /**< the caller's views */
    Exec exec_;                /**< the instance the kernels run on and fence() waits for */
};

} // namespace fieldsync::halo::detail
